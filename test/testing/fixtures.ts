/** The tools and applications of the toolwright/testing specs. */
import 'reflect-metadata';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import {
  Client,
  StreamableHTTPClientTransport,
  type ClientCapabilities,
  type ElicitRequestParams,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import { z } from 'zod';
import { ToolsModule } from '../../lib/index.js';
import {
  createToolInvoker,
  defineRuntimeTool,
  type ToolContext,
  type ToolPrincipal,
} from '../../lib/core/index.js';
import { createMcpHttpHandler, type McpHttpHandlerOptions } from '../../lib/mcp/index.js';
import type { McpAuthOptions } from '../../lib/mcp/index.js';
import type { McpTestProtocolVersion } from '../../lib/testing/index.js';

export const STATE_KEY = 'a test key of at least thirty-two bytes, for requestState';

/** The tools: an echo of who calls, progress, a question, a scoped export. */
export function deskTools() {
  const whoami = defineRuntimeTool({
    description: 'Say who is calling',
    identity: { serviceName: 'desk', action: 'whoami', method: 'GET' },
    input: z.object({ text: z.string().min(1) }),
    handler: ({ input, context }) => {
      const principal = (context as ToolContext & { principal?: ToolPrincipal }).principal;
      return {
        text: input.text,
        tenantId: (context.tenantId as string | undefined) ?? null,
        subject: principal?.subject ?? null,
        scopes: principal?.scopes ?? null,
      };
    },
  });
  const work = defineRuntimeTool({
    description: 'Work in steps, reporting progress',
    identity: { serviceName: 'desk', action: 'work', method: 'POST' },
    input: z.object({ steps: z.number().int().min(1).max(5) }),
    handler: async ({ input, reportProgress }) => {
      for (let step = 1; step <= input.steps; step++) {
        reportProgress({ progress: step, total: input.steps, message: `step ${step}` });
        await new Promise((resolve) => setImmediate(resolve));
      }
      return { steps: input.steps };
    },
  });
  const close = defineRuntimeTool({
    description: 'Close a ticket once the user confirms',
    identity: { serviceName: 'desk', action: 'close', method: 'POST' },
    input: z.object({ id: z.string() }),
    asks: { confirm: true },
    handler: async ({ input, confirm }) => ({
      id: input.id,
      closed: await confirm(`Close ${input.id}?`),
    }),
  });
  const exportLedger = defineRuntimeTool({
    description: 'Export the ledger',
    identity: { serviceName: 'desk', action: 'export', method: 'GET' },
    input: z.object({}),
    scopes: ['ledger:export'],
    handler: () => ({ url: 'https://files.example.com/ledger.csv' }),
  });
  return [whoami, work, close, exportLedger];
}

/** The request's tenant, from the `x-tenant-id` header. */
const tenant = (request: { headers: Record<string, unknown> }) =>
  request.headers['x-tenant-id'] === undefined ? {} : { tenantId: request.headers['x-tenant-id'] };

/** The caller, from the `x-user` header (no `mcp.auth`). */
const identify = (request: unknown) =>
  (request as { headers: Record<string, string | undefined> }).headers['x-user'];

/** The endpoint options every target shares. */
export function endpointOptions(auth?: McpAuthOptions): McpHttpHandlerOptions {
  return {
    context: tenant,
    identify,
    requestState: { key: STATE_KEY },
    ...(auth && { auth }),
    logger: { error: () => undefined },
  };
}

export const TARGETS = ['express', 'fastify', 'invoker'] as const;
export type TargetName = (typeof TARGETS)[number];

/** One application: what `connectMcpClient` takes, and how to close it. */
export interface TargetApp {
  target: INestApplication | ReturnType<typeof createToolInvoker>;
  /** The options `connectMcpClient` passes for an invoker target. */
  mcp?: McpHttpHandlerOptions;
  /** Listens on 127.0.0.1, port 0: the base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** An application of the given kind serving the desk tools, not yet listening. */
export async function targetApp(name: TargetName, auth?: McpAuthOptions): Promise<TargetApp> {
  const options = endpointOptions(auth);
  if (name === 'invoker') {
    const invoker = createToolInvoker(deskTools());
    let server: Server | undefined;
    return {
      target: invoker,
      mcp: options,
      listen: async () => {
        server = createServer(createMcpHttpHandler(invoker, options));
        await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
        return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      },
      close: async () => {
        server?.closeAllConnections();
        await new Promise((done) => (server ? server.close(done) : done(undefined)));
        await invoker.close();
      },
    };
  }
  const { context, identify: who, requestState } = options;
  const moduleRef = await Test.createTestingModule({
    imports: [
      ToolsModule.forRoot({
        registry: deskTools(),
        context: context as never,
        mcp: { identify: who, requestState, ...(auth && { auth }) },
      }),
    ],
  }).compile();
  const appOptions = { logger: false as const, forceCloseConnections: true };
  const app =
    name === 'fastify'
      ? moduleRef.createNestApplication(new FastifyAdapter(), appOptions)
      : moduleRef.createNestApplication(appOptions);
  return {
    target: app,
    listen: async () => {
      await app.listen(0, '127.0.0.1');
      return (await app.getUrl()).replace('[::1]', '127.0.0.1');
    },
    close: () => app.close(),
  };
}

/** What the over-HTTP client is given: the same options `connectMcpClient` takes. */
export interface ClientSettings {
  protocolVersion: McpTestProtocolVersion;
  headers?: Record<string, string>;
  capabilities?: ClientCapabilities;
  elicitation?: (params: ElicitRequestParams) => ElicitResult | Promise<ElicitResult>;
}

/**
 * The client `connectMcpClient` builds, over real HTTP: the same options, the platform's own
 * `fetch` to a listening server.
 */
export async function connectOverHttp(url: string, settings: ClientSettings): Promise<Client> {
  const client = new Client(
    { name: 'toolwright-testing', version: '1.0.0' },
    {
      capabilities: {
        ...(settings.elicitation && { elicitation: { form: {} } }),
        ...settings.capabilities,
      },
      ...(settings.protocolVersion === '2026-07-28' && {
        versionNegotiation: { mode: { pin: '2026-07-28' } },
      }),
    },
  );
  const { elicitation } = settings;
  if (elicitation) client.setRequestHandler('elicitation/create', (r) => elicitation(r.params));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      ...(settings.headers && { requestInit: { headers: settings.headers } }),
    }),
  );
  return client;
}

/** A raw answer's status and challenge. */
export interface RawAnswer {
  status: number;
  challenge: string | null;
}

/** POSTs an `initialize` over real HTTP with the given Host and headers (fetch cannot set Host). */
export function rawInitializeOverHttp(
  url: string,
  host: string,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const target = new URL(url);
  const body = JSON.stringify(INITIALIZE);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { ...RAW_HEADERS, ...headers, host, 'content-length': Buffer.byteLength(body) },
      },
      (answer) => {
        answer.resume();
        const challenge = answer.headers['www-authenticate'];
        resolve({ status: answer.statusCode!, challenge: challenge ?? null });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

export const RAW_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1.0.0' },
  },
};
