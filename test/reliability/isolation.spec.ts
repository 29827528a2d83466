import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent } from 'node:http';
import {
  Controller,
  Get,
  Inject,
  Injectable,
  Query,
  UnauthorizedException,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { z } from 'zod';
import {
  createRuntimeToolFactory,
  currentToolCall,
  ToolInvoker,
  ToolRequestContext,
  ToolsModule,
} from '../../lib/index.js';
import {
  ADAPTERS,
  callBody,
  eraHeaders,
  finalMessage,
  raw,
  toolPayload,
  type Era,
} from './support.js';
import { TestApps } from '../fixtures/apps.js';
import { deferred } from '../fixtures/timing.js';

/**
 * Context isolation at scale: 2,000 HTTP requests, each with its own credential and tenant,
 * up to 250 in flight at once over keep-alive sockets opened beforehand; each request runs 50
 * tool calls in-process (parallel waves, nested calls included): 100,000 calls, and not one may
 * see another request's tenant, user or request.
 */

const REQUESTS = 2000;
const CALLS_PER_REQUEST = 50;
const IN_FLIGHT = 250;

/** Maps `Authorization: Bearer key-<n>` to the user `user-<n>`, like an API-key guard. */
@Injectable()
class KeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest();
    const match = /^Bearer key-(\d+)$/.exec(request.headers.authorization ?? '');
    if (!match) throw new UnauthorizedException();
    request.user = { id: `user-${match[1]}` };
    return true;
  }
}

const Context = z.object({ tenantId: z.string(), userId: z.string() });

/** What one call saw, read at its end (after yielding to the other requests). */
type Seen = [tenantId: string, userId: string, requestTenant: string, depth: number];

let calls = 0;

function isolationTools(requestContext: () => ToolRequestContext, invoker: () => ToolInvoker) {
  const factory = createRuntimeToolFactory({ serviceName: 'iso', context: Context });
  const yieldRandomly = () =>
    Math.random() < 0.5
      ? new Promise<void>((resolve) => setImmediate(resolve))
      : new Promise<void>((resolve) => setTimeout(resolve, Math.random() < 0.5 ? 0 : 1));

  const probe = factory.define({
    action: 'probe',
    method: 'GET',
    description: 'Report the context, the current request and the call',
    input: z.object({ nonce: z.number() }),
    handler: async ({ context }): Promise<Seen> => {
      calls++;
      await yieldRandomly();
      const request = requestContext().request as { headers: Record<string, string> } | undefined;
      return [
        context.tenantId,
        context.userId,
        request?.headers['x-tenant-id'] ?? '',
        currentToolCall()?.depth ?? -1,
      ];
    },
  });

  const nested = factory.define({
    action: 'nested',
    method: 'GET',
    description: 'Call iso_probe from inside a call',
    input: z.object({ nonce: z.number() }),
    handler: async ({ input, context }): Promise<Seen[]> => {
      calls++;
      await yieldRandomly();
      const inner = await invoker().invokeOrThrow<Seen>(
        'iso_probe',
        { nonce: input.nonce },
        { transport: 'AGENT' },
      );
      const request = requestContext().request as { headers: Record<string, string> } | undefined;
      return [
        [
          context.tenantId,
          context.userId,
          request?.headers['x-tenant-id'] ?? '',
          currentToolCall()!.depth,
        ],
        inner,
      ];
    },
  });
  return [probe, nested];
}

let requestContextRef: ToolRequestContext;
let invokerRef: ToolInvoker;
let inFlight = 0;
let peakInFlight = 0;
/**
 * Holds the first requests until OVERLAP of them are in the route at once, so that the requests
 * overlap by construction rather than by how fast the machine happens to be.
 */
const OVERLAP = IN_FLIGHT / 2;
let overlapping = deferred();

@Controller('iso')
@UseGuards(KeyGuard)
class BurstController {
  constructor(
    @Inject(ToolInvoker) private readonly tools: ToolInvoker,
    @Inject(ToolRequestContext) requestContext: ToolRequestContext,
  ) {
    requestContextRef = requestContext;
    invokerRef = tools;
  }

  /** 50 calls: 5 waves of 8 probes and 1 nested call (2 calls) in parallel. */
  @Get('burst')
  async burst(@Query('waves') waves = '5'): Promise<Seen[]> {
    peakInFlight = Math.max(peakInFlight, ++inFlight);
    try {
      if (inFlight >= OVERLAP) overlapping.resolve();
      await overlapping.promise;
      const seen: Seen[] = [];
      for (let wave = 0; wave < Number(waves); wave++) {
        const results = await Promise.all([
          ...Array.from({ length: 8 }, (_, i) =>
            this.tools.invokeOrThrow<Seen>(
              'iso_probe',
              { nonce: wave * 10 + i },
              { transport: 'AGENT' },
            ),
          ),
          this.tools
            .invokeOrThrow<Seen[]>('iso_nested', { nonce: wave }, { transport: 'AGENT' })
            .then((pair) => pair),
        ]);
        for (const result of results) {
          if (Array.isArray(result[0])) seen.push(...(result as Seen[]));
          else seen.push(result as Seen);
        }
      }
      return seen;
    } finally {
      inFlight--;
    }
  }
}

/** A route without work, to open the connections a burst will use. */
@Controller('iso')
class PingController {
  @Get('ping')
  ping(): string {
    return 'pong';
  }
}

const tools = isolationTools(
  () => requestContextRef,
  () => invokerRef,
);

const resolver = (request: { headers: Record<string, string>; user?: { id: string } }) => ({
  tenantId: request.headers['x-tenant-id'],
  userId: request.user?.id ?? 'anonymous',
});

/** Runs `count` tasks with at most `limit` at once. */
async function pool<T>(
  count: number,
  limit: number,
  task: (i: number) => Promise<T>,
): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

describe.each(ADAPTERS)('context isolation at scale (%s)', (adapter) => {
  const apps = new TestApps();
  let url: string;
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });

  beforeAll(async () => {
    ({ url } = await apps.listen(
      {
        imports: [ToolsModule.forRoot({ registry: tools, context: resolver })],
        controllers: [BurstController, PingController],
        providers: [KeyGuard],
      },
      adapter,
    ));
  });
  afterAll(async () => {
    agent.destroy();
    await apps.closeAll();
  });

  /**
   * Opens the burst's IN_FLIGHT keep-alive connections while the app is idle. A server accepts
   * one new connection per turn of its event loop (libuv), and a turn takes long while hundreds
   * of requests run: connections opened during the burst would each wait for a turn, the last
   * of them for most of the burst, on a busy machine longer than any request's ceiling.
   */
  async function openConnections() {
    const answers = await Promise.all(
      Array.from({ length: IN_FLIGHT }, () => raw(`${url}/iso/ping`, { method: 'GET', agent })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    expect(Object.values(agent.freeSockets).flat()).toHaveLength(IN_FLIGHT);
  }

  it(`runs ${REQUESTS * CALLS_PER_REQUEST} calls over ${REQUESTS} requests with distinct credentials; none sees another's`, async () => {
    await openConnections();
    calls = 0;
    peakInFlight = 0;
    overlapping = deferred();
    const answers = await pool(REQUESTS, IN_FLIGHT, (i) =>
      raw(`${url}/iso/burst`, {
        method: 'GET',
        agent,
        timeoutMs: 30_000,
        headers: { authorization: `Bearer key-${i}`, 'x-tenant-id': `tenant-${i}` },
      }),
    );
    let total = 0;
    const wrong: Array<{ request: number; seen: Seen }> = [];
    answers.forEach((answer, i) => {
      expect(answer.status).toBe(200);
      const seen = answer.messages![0] as Seen[];
      total += seen.length;
      for (const entry of seen) {
        const [tenantId, userId, requestTenant, depth] = entry;
        if (
          tenantId !== `tenant-${i}` ||
          userId !== `user-${i}` ||
          requestTenant !== `tenant-${i}` ||
          (depth !== 0 && depth !== 1)
        ) {
          wrong.push({ request: i, seen: entry });
        }
      }
    });
    expect(wrong).toEqual([]);
    expect(total).toBe(REQUESTS * CALLS_PER_REQUEST);
    expect(calls).toBe(REQUESTS * CALLS_PER_REQUEST);
    // The requests really overlapped (the route held them until they did).
    expect(overlapping.settled).toBe(true);
    expect(peakInFlight).toBeGreaterThanOrEqual(OVERLAP);
  }, 60_000);

  it('keeps 1,000 concurrent MCP tools/call requests (both eras) in their own contexts', async () => {
    await openConnections();
    const answers = await pool(REQUESTS / 2, IN_FLIGHT, (i) => {
      const era: Era = i % 2 === 0 ? 'legacy' : 'modern';
      return raw(`${url}/mcp`, {
        agent,
        timeoutMs: 30_000,
        headers: {
          ...eraHeaders(era, 'tools/call', 'iso_probe'),
          authorization: `Bearer key-${i}`,
          'x-tenant-id': `tenant-${i}`,
        },
        body: callBody(era, 'iso_probe', { nonce: i }, `req-${i}`),
      });
    });
    const wrong = answers
      .map((answer, i) => ({ i, id: finalMessage(answer)?.id, seen: toolPayload(answer).json }))
      .filter(
        ({ i, id, seen }) =>
          id !== `req-${i}` || seen[0] !== `tenant-${i}` || seen[2] !== `tenant-${i}`,
      );
    expect(wrong).toEqual([]);
  }, 60_000);
});
