import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent } from 'node:http';
import fc from 'fast-check';
import { z } from 'zod';
import { defineRuntimeTool, ToolsModule } from '../../lib/index.js';
import { mcpTools, newSeen, tenantFromHeader } from '../mcp/support.js';
import {
  ADAPTERS,
  BIG_LIMIT,
  ERAS,
  MODERN_META,
  callBody,
  eraHeaders,
  fcParams,
  finalMessage,
  isJsonRpcNotification,
  isJsonRpcResponse,
  leaksIn,
  listBody,
  post,
  raw,
  toolPayload,
  type Answer,
  type Era,
} from './support.js';
import { TestApps } from '../fixtures/apps.js';

/**
 * Random JSON-RPC bodies, valid and not, POSTed raw to the MCP endpoint of both adapters: every
 * answer is a well-formed HTTP answer with the spec's status and a JSON-RPC body, and the
 * endpoint still serves a normal call afterwards. A request unanswered after REQUEST_MS fails:
 * a ceiling against hangs, not a measure of speed.
 */

// What the endpoint may answer: success, accepted notification, and the 4xx of the transport
// spec (bad request, method, accept, size, media type). Never a 5xx.
const ALLOWED_STATUSES = [200, 202, 400, 405, 406, 413, 415];
const REQUEST_MS = 5000;
const BIG_REQUEST_MS = 15_000;

const echoAny = defineRuntimeTool({
  name: 'fuzz_echo_any',
  description: 'Echo any value back',
  identity: { serviceName: 'fuzz', action: 'echoAny', method: 'POST' },
  input: z.object({ value: z.unknown() }),
  output: z.object({ value: z.unknown() }),
  handler: ({ input }) => ({ value: input.value }),
});

const TOOL_NAMES = [
  'tenancy_echo',
  'math_square',
  'items_delete',
  'contacts_card',
  'ops_boom',
  'ops_reserve',
  'jobs_run',
  'fuzz_echo_any',
] as const;

// ---------------------------------------------------------------------------------------------
// Arbitraries.

interface Case {
  body: string | Buffer;
  headers: Record<string, string>;
  chunked: boolean;
  /** A valid request: 200 and a response with this id. */
  expectId?: string | number;
}

const anyJson = fc.jsonValue({ maxDepth: 3 });
/**
 * JSON for the requests that must succeed: no `__proto__` or `constructor` key anywhere, which
 * Fastify's body parser refuses by design (prototype poisoning: a 400 JSON-RPC error, checked
 * with the other hostile bodies below).
 */
const plainJson = anyJson.filter(
  (value) => !/"(__proto__|constructor)"/.test(JSON.stringify(value)),
);
const anyString = fc.string({ unit: 'binary', maxLength: 40 });
const safeId = fc.oneof(
  fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
);
const metaArb = fc.oneof(
  fc.constant(undefined),
  fc.constant(MODERN_META),
  fc.record({ progressToken: fc.oneof(fc.string(), fc.integer(), anyJson) }),
  anyJson,
  fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'prototype', 'x'), anyJson),
);

/** A request the endpoint must answer with a result: a tool call or list with valid shapes. */
const validRequest = fc
  .record({
    era: fc.constantFrom<Era>(...ERAS),
    id: safeId,
    call: fc.oneof(
      fc.record({
        name: fc.constant('tenancy_echo'),
        args: fc.record({ text: fc.string({ minLength: 1 }) }),
      }),
      fc.record({ name: fc.constant('math_square'), args: fc.record({ n: fc.integer() }) }),
      fc.record({ name: fc.constant('items_delete'), args: fc.record({ id: anyString }) }),
      fc.record({ name: fc.constant('ops_reserve'), args: fc.record({ seat: anyString }) }),
      fc.record({ name: fc.constant('ops_boom'), args: fc.constant({}) }),
      fc.record({ name: fc.constant('contacts_card'), args: fc.record({ name: anyString }) }),
      fc.record({ name: fc.constant('fuzz_echo_any'), args: fc.record({ value: plainJson }) }),
      // Invalid arguments of a known tool are a tool result too (isError).
      fc.record({
        name: fc.constantFrom(...TOOL_NAMES),
        args: fc.dictionary(fc.string({ maxLength: 8 }), plainJson, { maxKeys: 4 }),
      }),
      fc.constant({ name: 'tools/list', args: undefined }),
    ),
    progress: fc.option(fc.oneof(fc.string({ maxLength: 8 }), fc.integer()), { nil: undefined }),
  })
  .map(({ era, id, call, progress }): Case => {
    const meta = progress === undefined ? {} : { progressToken: progress };
    const isList = call.name === 'tools/list';
    const body = isList ? listBody(era, id) : callBody(era, call.name, call.args, id, meta);
    return {
      body,
      headers: eraHeaders(
        era,
        isList ? 'tools/list' : 'tools/call',
        isList ? undefined : call.name,
      ),
      chunked: false,
      expectId: id,
    };
  });

/** Something shaped like a JSON-RPC message, with any field of any type. */
const messageLike = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), anyJson),
    id: fc.oneof(safeId, anyJson),
    method: fc.oneof(
      fc.constantFrom(
        'tools/call',
        'tools/list',
        'initialize',
        'ping',
        'server/discover',
        'resources/list',
        'notifications/initialized',
        'notifications/cancelled',
        'notifications/progress',
        '__proto__',
        'constructor',
        'toString',
        'tools/call\u0000',
      ),
      anyString,
      anyJson,
    ),
    params: fc.oneof(
      anyJson,
      fc.record(
        {
          name: fc.oneof(fc.constantFrom(...TOOL_NAMES), anyString, anyJson),
          arguments: fc.oneof(anyJson, fc.object({ maxDepth: 2 })),
          _meta: metaArb,
          cursor: anyJson,
          protocolVersion: fc.oneof(
            fc.constantFrom('2025-06-18', '2025-03-26', '2026-07-28'),
            anyJson,
          ),
          capabilities: anyJson,
          clientInfo: anyJson,
          requestId: anyJson,
        },
        { requiredKeys: [] },
      ),
    ),
    result: anyJson,
    error: anyJson,
  },
  { requiredKeys: [] },
);

/** Raw numeric ids JSON.stringify cannot write: overflowing, fractional, beyond 2^53. */
const rawNumber = fc.constantFrom(
  '1e400',
  '-1e400',
  '1e-400',
  '123456789012345678901234567890',
  '9007199254740993',
  '1.5',
  '-0',
  '0.0',
  '1E2',
);

const DEEP = 10_000;
const deepBodies = [
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fuzz_echo_any","arguments":{"value":${'['.repeat(DEEP)}${']'.repeat(DEEP)}}}}`,
  // The same through the SDK (a progress token), and on the 2026 era.
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fuzz_echo_any","_meta":{"progressToken":"p"},"arguments":{"value":${'['.repeat(DEEP)}${']'.repeat(DEEP)}}}}`,
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fuzz_echo_any","_meta":${JSON.stringify(MODERN_META)},"arguments":{"value":${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}}}}`,
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fuzz_echo_any","_meta":${JSON.stringify({ ...MODERN_META, progressToken: 'p' })},"arguments":{"value":${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}}}}`,
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tenancy_echo","arguments":{"text":${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}}}}`,
  `{"jsonrpc":"2.0","id":${'['.repeat(DEEP)}${']'.repeat(DEEP)},"method":"tools/list"}`,
  `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}}`,
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"jobs_run","arguments":{"steps":1},"_meta":${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}}}`,
  `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`,
  `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`,
];

/** Any body: valid requests, messages of any shape, batches, raw numbers, deep nesting. */
const bodyText = fc.oneof(
  { weight: 3, arbitrary: validRequest.map((c) => c.body as string) },
  { weight: 4, arbitrary: messageLike.map((m) => JSON.stringify(m)) },
  { weight: 2, arbitrary: anyJson.map((v) => JSON.stringify(v)) },
  {
    weight: 2,
    arbitrary: fc
      .array(
        fc.oneof(
          messageLike,
          validRequest.map((c) => JSON.parse(c.body as string)),
        ),
        {
          maxLength: 5,
        },
      )
      .map((batch) => JSON.stringify(batch)),
  },
  {
    // Duplicate ids in a batch.
    weight: 2,
    arbitrary: fc
      .tuple(validRequest, fc.integer({ min: 2, max: 4 }))
      .map(([c, times]) => `[${Array.from({ length: times }, () => c.body).join(',')}]`),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom('tools/list', 'tools/call', 'initialize', 'ping'), rawNumber)
      .map(
        ([method, id]) =>
          `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":{"name":"math_square","arguments":{"n":${id}}}}`,
      ),
  },
  { weight: 1, arbitrary: fc.constantFrom(...deepBodies) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('', ' ', 'null', '[]', '{}', '[[]]', '"x"', '{"jsonrpc":'),
  },
);

/** Byte-level damage: truncation, NUL bytes, invalid UTF-8. */
const damage = fc.oneof(
  { weight: 6, arbitrary: fc.constant((text: string): string | Buffer => text) },
  {
    weight: 1,
    arbitrary: fc.nat().map((at) => (text: string) => text.slice(0, at % (text.length + 1))),
  },
  {
    weight: 1,
    arbitrary: fc.nat().map((at) => (text: string) => {
      const i = at % (text.length + 1);
      return `${text.slice(0, i)}\u0000${text.slice(i)}`;
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.nat(),
        fc.constantFrom(
          [0xff],
          [0xc3, 0x28],
          [0xed, 0xa0, 0x80],
          [0xf8, 0x88, 0x80, 0x80, 0x80],
          [0x00],
        ),
      )
      .map(([at, bytes]) => (text: string) => {
        const buffer = Buffer.from(text);
        const i = at % (buffer.length + 1);
        return Buffer.concat([buffer.subarray(0, i), Buffer.from(bytes), buffer.subarray(i)]);
      }),
  },
  {
    // Invalid UTF-8 inside the first string value: still valid JSON syntax.
    weight: 1,
    arbitrary: fc.constant((text: string) => {
      const quote = text.indexOf('"', text.indexOf(':') + 1);
      if (quote < 0) return text;
      const buffer = Buffer.from(text);
      const at = Buffer.byteLength(text.slice(0, quote + 1));
      return Buffer.concat([
        buffer.subarray(0, at),
        Buffer.from([0xc0, 0xaf, 0xff]),
        buffer.subarray(at),
      ]);
    }),
  },
);

const headerSet = fc.record({
  era: fc.constantFrom<Era | 'none' | 'bogus'>('legacy', 'modern', 'none', 'bogus'),
  contentType: fc.constantFrom(
    'application/json',
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=latin1',
    'text/plain',
    'application/x-www-form-urlencoded',
    undefined,
  ),
  accept: fc.constantFrom(
    'application/json, text/event-stream',
    'application/json, text/event-stream',
    'application/json',
    'text/event-stream',
    '*/*',
    undefined,
  ),
  method: fc.option(fc.oneof(fc.constantFrom('tools/call', 'tools/list'), anyString), {
    nil: undefined,
  }),
  name: fc.option(fc.oneof(fc.constantFrom(...TOOL_NAMES), anyString), { nil: undefined }),
});

const headerValue = (value: string) => value.replace(/[^\t\x20-\x7e]/g, '');

const anyCase: fc.Arbitrary<Case> = fc.oneof(
  { weight: 2, arbitrary: validRequest },
  {
    weight: 5,
    arbitrary: fc
      .record({ text: bodyText, damage, headers: headerSet, chunked: fc.boolean() })
      .map(({ text, damage: hurt, headers, chunked }) => {
        const h: Record<string, string> = {};
        if (headers.contentType) h['content-type'] = headers.contentType;
        if (headers.accept) h.accept = headers.accept;
        if (headers.era === 'legacy') h['mcp-protocol-version'] = '2025-06-18';
        if (headers.era === 'modern') h['mcp-protocol-version'] = '2026-07-28';
        if (headers.era === 'bogus') h['mcp-protocol-version'] = '1999-01-01';
        if (headers.method !== undefined) h['mcp-method'] = headerValue(headers.method);
        if (headers.name !== undefined) h['mcp-name'] = headerValue(headers.name);
        return { body: hurt(text), headers: h, chunked };
      }),
  },
);

// ---------------------------------------------------------------------------------------------
// Checks.

/** A well-formed answer: an allowed status, a JSON-RPC body (none for 202), no leak, in time. */
function expectWellFormed(answer: Answer, input: string | Buffer, label: string): void {
  const summary = `${label}: ${answer.status} ${answer.text.slice(0, 300)}`;
  expect({ summary, allowed: ALLOWED_STATUSES.includes(answer.status) }).toEqual({
    summary,
    allowed: true,
  });
  if (answer.status === 202) {
    expect({ summary, text: answer.text }).toEqual({ summary, text: '' });
    return;
  }
  const messages = answer.messages;
  expect({ summary, parsed: Array.isArray(messages) && messages.length > 0 }).toEqual({
    summary,
    parsed: true,
  });
  const last = messages!.at(-1);
  const shapes = messages!.map((message, i) =>
    i === messages!.length - 1 || !isJsonRpcNotification(message)
      ? isJsonRpcResponse(message) || (Array.isArray(message) && message.every(isJsonRpcResponse))
      : true,
  );
  expect({ summary, shapes }).toEqual({ summary, shapes: shapes.map(() => true) });
  expect({ summary, last: last !== undefined }).toEqual({ summary, last: true });
  expect({ summary, leaks: leaksIn(answer.text, input.toString()) }).toEqual({
    summary,
    leaks: [],
  });
}

async function send(url: string, c: Case, agent: Agent, timeoutMs = REQUEST_MS): Promise<Answer> {
  const body = c.chunked
    ? [
        typeof c.body === 'string' ? c.body.slice(0, 7) : c.body.subarray(0, 7),
        typeof c.body === 'string' ? c.body.slice(7) : c.body.subarray(7),
      ]
    : c.body;
  return raw(url, { method: 'POST', headers: c.headers, body, agent, timeoutMs });
}

// ---------------------------------------------------------------------------------------------

describe.each(ADAPTERS)('random JSON-RPC bodies on %s', (adapter) => {
  const apps = new TestApps();
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  let mcpUrl: string;

  beforeAll(async () => {
    const { url } = await apps.listen(
      {
        imports: [
          ToolsModule.forRoot({
            registry: [...mcpTools(newSeen()), echoAny],
            context: tenantFromHeader,
            mcp: { maxBodyBytes: BIG_LIMIT },
          }),
        ],
      },
      adapter,
      { bodyLimit: BIG_LIMIT },
    );
    mcpUrl = `${url}/mcp`;
  });
  afterAll(async () => {
    agent.destroy();
    await apps.closeAll();
  });

  async function expectNormalCallWorks() {
    for (const era of ERAS) {
      const answer = await post(
        mcpUrl,
        callBody(era, 'math_square', { n: 12 }, 'after'),
        eraHeaders(era, 'tools/call', 'math_square'),
      );
      expect(answer.status).toBe(200);
      expect(finalMessage(answer)).toMatchObject({
        id: 'after',
        result: { content: [{ text: '144' }] },
      });
    }
  }

  it('answers every valid tools/call and tools/list with a result for its id', async () => {
    await fc.assert(
      fc.asyncProperty(validRequest, async (c) => {
        const answer = await send(mcpUrl, c, agent);
        expectWellFormed(answer, c.body, 'valid');
        expect(answer.status).toBe(200);
        const last = finalMessage(answer);
        // A known tool's failures (validation, thrown errors) are results with isError; an id
        // is answered as sent.
        expect(last).toEqual(
          expect.objectContaining({ jsonrpc: '2.0', id: c.expectId, result: expect.any(Object) }),
        );
      }),
      fcParams(120),
    );
    await expectNormalCallWorks();
  });

  it('answers any body, header set and byte damage with a well-formed JSON-RPC answer, never 5xx', async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(anyCase, async (c) => {
        const answer = await send(mcpUrl, c, agent);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        expectWellFormed(answer, c.body, 'any');
        if (c.expectId !== undefined) expect(finalMessage(answer)?.id).toEqual(c.expectId);
      }),
      fcParams(300),
    );
    // The run exercised refusals as well as answers.
    expect([...statuses.keys()]).toEqual(expect.arrayContaining([200, 400]));
    await expectNormalCallWorks();
  });

  it.each(deepBodies.map((body, i) => [i, body] as const))(
    'refuses a body nested 10,000 levels deep (#%i) on its bytes with 400 and -32700, with and without Content-Length',
    async (_i, body) => {
      for (const chunked of [false, true]) {
        // The 2026 bodies are tools/call of fuzz_echo_any, with the routing headers to match.
        const headers = body.includes('protocolVersion')
          ? eraHeaders('modern', 'tools/call', 'fuzz_echo_any')
          : eraHeaders('legacy');
        const answer = await send(mcpUrl, { body, headers, chunked }, agent);
        expectWellFormed(answer, body, `deep chunked=${chunked}`);
        expect({ chunked, status: answer.status, code: answer.messages?.[0].error?.code }).toEqual({
          chunked,
          status: 400,
          code: -32700,
        });
      }
      await expectNormalCallWorks();
    },
  );

  describe('4 MiB strings', () => {
    const text = 'y'.repeat(4 * 1024 * 1024);

    it.each(ERAS)(
      'serves a 4 MiB argument on the %s era, answered directly and through the SDK',
      async (era) => {
        // Without a progress token the endpoint answers directly; with one, the SDK answers.
        for (const meta of [{}, { progressToken: 'big' }]) {
          const answer = await post(
            mcpUrl,
            callBody(era, 'tenancy_echo', { text }, 'big', meta),
            eraHeaders(era, 'tools/call', 'tenancy_echo'),
            { timeoutMs: BIG_REQUEST_MS },
          );
          expect(answer.status).toBe(200);
          const { isError, json } = toolPayload(answer);
          expect(isError).toBe(false);
          expect(json.text).toHaveLength(text.length);
        }
      },
    );

    it('serves a 4 MiB JSON-RPC id, a 4 MiB tool name and a 4 MiB method as JSON-RPC answers', async () => {
      const bodies = [
        JSON.stringify({ jsonrpc: '2.0', id: text, method: 'tools/list' }),
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: text, arguments: {} },
        }),
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: text }),
      ];
      for (const body of bodies) {
        const answer = await post(mcpUrl, body, eraHeaders('legacy'), {
          timeoutMs: BIG_REQUEST_MS,
        });
        expectWellFormed(answer, '', '4 MiB');
      }
    });

    it('answers a body above the limit with 413 and a JSON-RPC error, declared or chunked', async () => {
      const over = callBody('legacy', 'tenancy_echo', { text: 'z'.repeat(BIG_LIMIT + 1024) });
      // A connection of its own for each: the refusal closes it, and a pooled keep-alive socket
      // the server may be closing at that very moment would only test the pool.
      const fresh = new Agent({ keepAlive: false });
      for (const chunked of [false, true]) {
        const answer = await send(
          mcpUrl,
          { body: over, headers: eraHeaders('legacy'), chunked },
          fresh,
          BIG_REQUEST_MS,
        );
        expect(answer.status).toBe(413);
        expect(answer.messages?.[0]).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      }
      fresh.destroy();
      await expectNormalCallWorks();
    });
  });

  it('answers NUL bytes and invalid UTF-8 in and around strings', async () => {
    const bodies: Array<string | Buffer> = [
      callBody('legacy', 'tenancy_echo', { text: 'a\u0000b' }, 'a\u0000b'),
      Buffer.concat([
        Buffer.from(
          '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tenancy_echo","arguments":{"text":"',
        ),
        Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
        Buffer.from('"}}}'),
      ]),
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"'),
        Buffer.from([0xc0, 0xaf]),
        Buffer.from('","arguments":{}}}'),
      ]),
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list"}\u0000'),
      Buffer.from('\u0000{"jsonrpc":"2.0","id":1,"method":"tools/list"}'),
      Buffer.from([
        0xef,
        0xbb,
        0xbf,
        ...Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list"}'),
      ]),
    ];
    for (const body of bodies) {
      const answer = await post(mcpUrl, body, eraHeaders('legacy'));
      expectWellFormed(answer, body, 'bytes');
    }
    const first = await post(mcpUrl, bodies[0], eraHeaders('legacy'));
    expect(finalMessage(first)).toMatchObject({ id: 'a\u0000b' });
    expect(toolPayload(first).json).toEqual({ text: 'a\u0000b', tenantId: 'anonymous' });
    await expectNormalCallWorks();
  });
});
