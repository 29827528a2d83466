/** Tools and clients shared by the MCP specs (apps: test/fixtures/apps.ts). */
import 'reflect-metadata';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ErrorCode as ErrorCodeV1,
  LoggingMessageNotificationSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import {
  Client as ClientV2,
  LOG_LEVEL_META_KEY,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { expect } from '@jest/globals';
import {
  Controller,
  Injectable,
  UnauthorizedException,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { z } from 'zod';
import {
  McpEndpoint,
  ToolError,
  createRuntimeToolFactory,
  defineRuntimeTool,
  type AfterToolCallEvent,
  type ToolCallInfo,
  type ToolGuard,
  type ToolHooks,
} from '../../lib/index.js';
import { sleep } from '../fixtures/timing.js';

// ---------------------------------------------------------------------------------------------
// What the tools saw, for assertions on the server side.

export interface Seen {
  /** Handler runs per tool name. */
  runs: Record<string, number>;
  /** The abort of the `wait` tool's signal, per `key` input. */
  aborts: Record<string, { aborted: boolean; reason: unknown }>;
  /** `afterToolCall` options of every finished call. */
  after: Array<Pick<AfterToolCallEvent, 'name' | 'call'> & { ok: boolean }>;
}

export const newSeen = (): Seen => ({ runs: {}, aborts: {}, after: [] });

const ran = (seen: Seen, name: string) => {
  seen.runs[name] = (seen.runs[name] ?? 0) + 1;
};

// ---------------------------------------------------------------------------------------------
// Tools.

export const TenantOnly = z.object({ tenantId: z.string().default('anonymous') });

/** Every tool of the MCP specs, recording into `seen`. */
export function mcpTools(seen: Seen) {
  const tenancy = createRuntimeToolFactory({ serviceName: 'tenancy', context: TenantOnly });

  const echo = tenancy.define({
    action: 'echo',
    method: 'GET',
    description: 'Echo the text with the tenant the call runs for',
    input: z.object({ text: z.string().min(1) }),
    output: z.object({ text: z.string(), tenantId: z.string() }),
    handler: ({ input, context }) => {
      ran(seen, 'tenancy_echo');
      return { text: input.text, tenantId: context.tenantId };
    },
  });

  const square = defineRuntimeTool({
    description: 'Square a number',
    identity: { serviceName: 'math', action: 'square', method: 'POST' },
    input: z.object({ n: z.number() }),
    output: z.number(),
    handler: ({ input }) => input.n * input.n,
  });

  const remove = defineRuntimeTool({
    description: 'Delete an item',
    identity: { serviceName: 'items', action: 'delete', method: 'DELETE' },
    input: z.object({ id: z.string() }),
    handler: ({ input }) => ({ deleted: input.id }),
  });

  const card = defineRuntimeTool({
    description: 'Render a contact card',
    identity: { serviceName: 'contacts', action: 'card', method: 'GET' },
    input: z.object({ name: z.string() }),
    output: z.object({ name: z.string(), initials: z.string() }),
    present: {
      mcp: (output) => ({
        content: [
          { type: 'text', text: `Card of ${output.name}` },
          { type: 'text', text: `Initials: ${output.initials}` },
        ],
      }),
    },
    handler: ({ input }) => ({ name: input.name, initials: input.name.slice(0, 1) }),
  });

  const boom = defineRuntimeTool({
    description: 'Fail unexpectedly',
    identity: { serviceName: 'ops', action: 'boom', method: 'POST' },
    input: z.object({}),
    handler: () => {
      ran(seen, 'ops_boom');
      throw new Error('secret db at 10.0.0.4');
    },
  });

  const reserve = defineRuntimeTool({
    description: 'Reserve a seat',
    identity: { serviceName: 'ops', action: 'reserve', method: 'POST' },
    input: z.object({ seat: z.string() }),
    handler: ({ input }) => {
      throw new ToolError('CONFLICT', {
        message: `Seat ${input.seat} is taken`,
        hint: 'Pick another seat from ops_list_seats',
        details: { seat: input.seat },
      });
    },
  });

  const agentOnly = defineRuntimeTool({
    description: 'Only for in-process agents',
    identity: { serviceName: 'ops', action: 'agent_only', method: 'POST' },
    input: z.object({}),
    transports: ['AGENT'],
    handler: () => ({ ok: true }),
  });

  const progress = defineRuntimeTool({
    description: 'Report progress and log while working',
    identity: { serviceName: 'jobs', action: 'run', method: 'POST' },
    input: z.object({ steps: z.number().int().min(1).max(10) }),
    handler: async ({ input, reportProgress, log }) => {
      for (let step = 1; step <= input.steps; step++) {
        reportProgress({ progress: step, total: input.steps, message: `step ${step}` });
        log.info(`step ${step} done`, { step });
        await sleep(5);
      }
      return { steps: input.steps };
    },
  });

  const wait = defineRuntimeTool({
    description: 'Wait until cancelled',
    identity: { serviceName: 'jobs', action: 'wait', method: 'POST' },
    input: z.object({ key: z.string(), giveUpMs: z.number().int().max(10_000).default(5000) }),
    handler: ({ input, signal }) =>
      new Promise((resolve) => {
        ran(seen, `jobs_wait:${input.key}`);
        const done = () => {
          seen.aborts[input.key] = { aborted: signal.aborted, reason: signal.reason };
          resolve({ cancelled: true });
        };
        if (signal.aborted) return done();
        signal.addEventListener('abort', done, { once: true });
        // Never hang the suite: give up after a while.
        setTimeout(() => resolve({ cancelled: false }), input.giveUpMs).unref();
      }),
  });

  const report = tenancy.define({
    action: 'report',
    method: 'GET',
    description: 'Read the admin report',
    input: z.object({}),
    handler: () => {
      ran(seen, 'tenancy_report');
      return { report: 'quarterly' };
    },
  });

  return [echo, square, remove, card, boom, reserve, agentOnly, progress, wait, report];
}

/** Hides and refuses `tenancy_report` for the tenant `restricted`. */
export const restrictedGuard: ToolGuard = {
  canActivate: ({ tool, context }) =>
    !(
      tool.name === 'tenancy_report' && (context as { tenantId?: string }).tenantId === 'restricted'
    ),
  canList: (tool, context) =>
    !(tool.name === 'tenancy_report' && context.tenantId === 'restricted'),
};

/** Records `afterToolCall` into `seen`. */
export const recordingHooks = (seen: Seen): ToolHooks => ({
  afterToolCall: ({ name, call, result }) => {
    seen.after.push({ name, call: { ...call } as ToolCallInfo, ok: result.ok });
  },
});

/** The resolver of the specs: the tenant from a header. */
export const tenantFromHeader = (request: any) =>
  request.headers['x-tenant-id'] === undefined ? {} : { tenantId: request.headers['x-tenant-id'] };

// ---------------------------------------------------------------------------------------------
// Clients: one face for both SDK generations.

export const GENERATIONS = ['v1 (2025)', 'v2 (2026-07-28)'] as const;
export type Generation = (typeof GENERATIONS)[number];

export interface CallOptions {
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
  signal?: AbortSignal;
  /**
   * On the 2026-07-28 revision, log notifications are opt-in per request (the
   * `io.modelcontextprotocol/logLevel` envelope key); a 2025-era stateless server has no level.
   */
  logLevel?: 'debug' | 'info' | 'warning' | 'error';
}

/** A connected client of either generation. */
export interface McpTestClient {
  readonly generation: Generation;
  listTools(): Promise<{ tools: any[] }>;
  callTool(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<any>;
  /** Log notifications received so far. */
  readonly logs: Array<{ level: string; data: unknown }>;
  /** The SDK client itself, for the methods this wrapper does not cover. */
  readonly raw: any;
  close(): Promise<void>;
}

export async function connectClient(
  generation: Generation,
  url: string,
  headers: Record<string, string> = {},
): Promise<McpTestClient> {
  const logs: McpTestClient['logs'] = [];
  const info = { name: 'toolwright-tests', version: '1.0.0' };
  const endpoint = new URL(url);
  if (generation === 'v1 (2025)') {
    const client = new ClientV1(info);
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push({ level: notification.params.level, data: notification.params.data });
    });
    await client.connect(new TransportV1(endpoint, { requestInit: { headers } }));
    return {
      generation,
      logs,
      raw: client,
      listTools: () => client.listTools(),
      callTool: (name, args = {}, options = {}) =>
        client.callTool({ name, arguments: args }, undefined, {
          ...(options.onprogress && { onprogress: options.onprogress }),
          ...(options.signal && { signal: options.signal }),
        }),
      close: () => client.close(),
    };
  }
  const client = new ClientV2(info, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  client.setNotificationHandler('notifications/message', (notification) => {
    logs.push({ level: notification.params.level, data: notification.params.data });
  });
  await client.connect(new TransportV2(endpoint, { requestInit: { headers } }));
  return {
    generation,
    logs,
    raw: client,
    listTools: () => client.listTools(),
    callTool: (name, args = {}, options = {}) =>
      client.callTool(
        {
          name,
          arguments: args,
          ...(options.logLevel && { _meta: { [LOG_LEVEL_META_KEY]: options.logLevel } }),
        },
        {
          ...(options.onprogress && { onprogress: options.onprogress }),
          ...(options.signal && { signal: options.signal }),
        },
      ),
    close: () => client.close(),
  };
}

/**
 * Expects a request cancelled through its signal to reject as its SDK generation rejects one:
 * with the abort reason wrapped as a request timeout — v1 an `McpError` -32001, v2 an `SdkError`
 * `REQUEST_TIMEOUT` — whose message carries the reason.
 */
export async function expectCancelled(
  call: Promise<unknown>,
  generation: Generation,
  reason: Error,
): Promise<void> {
  if (generation === 'v1 (2025)') {
    await expect(call).rejects.toBeInstanceOf(McpError);
    await expect(call).rejects.toMatchObject({
      code: ErrorCodeV1.RequestTimeout,
      message: `MCP error ${ErrorCodeV1.RequestTimeout}: ${reason}`,
    });
  } else {
    await expect(call).rejects.toBeInstanceOf(SdkError);
    await expect(call).rejects.toMatchObject({
      code: SdkErrorCode.RequestTimeout,
      message: String(reason),
    });
  }
}

/** The JSON of a result's first text block. */
export function textJson(result: { content?: Array<{ type: string; text?: string }> }): any {
  const block = result.content?.find((item) => item.type === 'text');
  if (!block?.text) throw new Error(`no text block in ${JSON.stringify(result)}`);
  return JSON.parse(block.text);
}

// ---------------------------------------------------------------------------------------------
// Nest guards on the MCP route.

/** Authenticates the route with an API key header; throws 401 without it. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest();
    if (request.headers['x-api-key'] !== 'sesame') {
      throw new UnauthorizedException('API key required');
    }
    return true;
  }
}

/** The same check as a global guard that refuses with `false` (403). */
@Injectable()
export class GlobalApiKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.switchToHttp().getRequest().headers['x-api-key'] === 'sesame';
  }
}

@Controller('secure/mcp')
@UseGuards(ApiKeyGuard)
export class SecureMcpController extends McpEndpoint {}
