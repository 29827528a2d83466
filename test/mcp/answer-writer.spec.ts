import { describe, expect, it } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import {
  createMcpHandler,
  ProtocolError,
  Server,
  SERVER_INFO_META_KEY,
} from '@modelcontextprotocol/server';
import fc from 'fast-check';
import {
  AnswerWriter,
  isListMethod,
  LIST_KEYS,
  refusalOf,
  type ListMethod,
} from '../../lib/mcp/answer-writer.js';
import { sdkCacheHints, type McpCacheHints } from '../../lib/mcp/cache-hints.js';
import { eraHeaders, MODERN_META, type Era } from '../fixtures/mcp-http.js';

/**
 * The direct path's answer writer writes the bytes the SDK writes for the same message: each
 * generated answer (a call's result, a read, a list, an error, a 2025-era call's notifications
 * ahead of its result) is written by an `AnswerWriter` and by the SDK's own server and transports
 * (`createMcpHandler`, a `Server` whose handler returns the result or throws the error), and the
 * bodies must be the same bytes, with the SDK's status and headers.
 *
 * The handler is the server's fallback handler, which the SDK runs without the result checks of
 * a registered `tools/call` handler: what is compared is how a result is encoded and framed, from
 * the handler's return to the bytes. A result here has none of the keys the 2026 era's encoding
 * owns (`resultType`, `ttlMs`, `cacheScope`, the server's identity in `_meta`), as no result the
 * direct path answers with does. With cache hints, the SDK's server has them as its
 * `cacheHints` option and answers a list from a registered handler, which the hints apply to.
 */
const SEED = 20260728;
const RUNS = 150;
const SERVER_INFO = { name: 'answers', version: '1.2.3', title: 'Ánswers ✓' };

/** What a response was sent with: status, headers (lower-cased names), body bytes. */
interface Written {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** A stand-in for Node's `ServerResponse` that keeps what the writer writes. */
class Recorder {
  headersSent = false;
  ended = false;
  status = 0;
  headers: Record<string, string> = {};
  private readonly chunks: Buffer[] = [];

  writeHead(status: number, headers: Record<string, string | number>): this {
    if (this.headersSent) throw new Error('headers written twice');
    this.status = status;
    for (const [name, value] of Object.entries(headers)) {
      this.headers[name.toLowerCase()] = String(value);
    }
    this.headersSent = true;
    return this;
  }

  cork(): void {}

  write(chunk: string | Buffer): boolean {
    if (this.ended) throw new Error('written after the end');
    this.chunks.push(Buffer.from(chunk));
    return true;
  }

  end(chunk?: string | Buffer): this {
    if (chunk !== undefined) this.write(chunk);
    this.ended = true;
    return this;
  }

  get target(): ServerResponse {
    return this as unknown as ServerResponse;
  }

  written(): Written {
    expect(this.ended).toBe(true);
    return { status: this.status, headers: this.headers, body: Buffer.concat(this.chunks) };
  }
}

/** What the SDK's handler does for the request: notify, then return a result or throw. */
interface Handling {
  notifications?: readonly { method: string; params: Record<string, unknown> }[];
  result?: Record<string, unknown>;
  error?: ProtocolError;
}

type Method = ListMethod | 'tools/call' | 'resources/read';

/** One request answered by the SDK's server and transports, as its client receives it. */
async function sdkAnswer(
  era: Era,
  method: Method,
  id: string | number,
  handling: Handling,
  cacheHints?: McpCacheHints,
): Promise<Written> {
  const handler = createMcpHandler(
    () => {
      const hints = sdkCacheHints(cacheHints);
      const server = new Server(SERVER_INFO, {
        capabilities: { tools: {}, resources: {}, prompts: {}, logging: {} },
        ...(hints && { cacheHints: hints }),
      });
      const answer = async (
        _request: unknown,
        ctx: { mcpReq: { notify: (notification: never) => Promise<void> } },
      ) => {
        for (const notification of handling.notifications ?? []) {
          await ctx.mcpReq.notify(notification as never);
        }
        if (handling.error) throw handling.error;
        return handling.result! as never;
      };
      server.fallbackRequestHandler = answer as never;
      // The server's cache hints apply to the handlers registered for their methods.
      if (hints && isListMethod(method)) server.setRequestHandler(method, answer as never);
      return server;
    },
    { legacy: 'stateless' },
  );
  const name = method === 'tools/call' ? 'echo' : method === 'resources/read' ? 'demo://a' : '';
  const params = {
    ...(method === 'tools/call' && { name, arguments: {} }),
    ...(method === 'resources/read' && { uri: name }),
    ...(era === 'modern' && { _meta: MODERN_META }),
  };
  const response = await handler.fetch(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: eraHeaders(era, method, name === '' ? undefined : name),
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    }),
  );
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => (headers[key] = value));
  const body = Buffer.from(await response.arrayBuffer());
  await handler.close();
  return { status: response.status, headers, body };
}

/**
 * The writer's answer is the SDK's: the same status and body bytes, every header the SDK sends
 * with its value, and nothing else but the body's length.
 */
function expectSameAnswer(written: Written, sdk: Written): void {
  expect(written.body.toString('utf8')).toBe(sdk.body.toString('utf8'));
  expect(written.body.equals(sdk.body)).toBe(true);
  expect(written.status).toBe(sdk.status);
  const { 'content-length': length, ...headers } = written.headers;
  expect(headers).toEqual(sdk.headers);
  if (length !== undefined) expect(Number(length)).toBe(sdk.body.length);
}

// ---------------------------------------------------------------------------------------------
// Generated answers.

const eras = fc.constantFrom<Era>('legacy', 'modern');
const ids = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
);
/** Text of every kind: ASCII, any code point (lone surrogates too), line and paragraph separators. */
const texts = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: fc.constantFrom('\u2028', '\u2029', '"', '\\', '\n', '\u0000', 'é', '😀') }),
);
/** The keys the 2026 era's encoding owns, which no result of the direct path carries. */
const ENCODING_KEYS = new Set(['resultType', 'ttlMs', 'cacheScope']);
const keys = fc
  .oneof(texts, fc.constantFrom('toJSON', '__proto__', 'constructor', '', '0', '10'))
  .filter((key) => !ENCODING_KEYS.has(key));
const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    texts,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(keys, tie('value'), { maxKeys: 3 }),
  ),
})).value;
/** `_meta` of a result: anything but the server's identity, which the encoding adds. */
const metas = fc
  .dictionary(keys, json, { maxKeys: 3 })
  .filter((meta) => !Object.hasOwn(meta, SERVER_INFO_META_KEY));
/** A tool's `securitySchemes`, in the convention of OpenAI's Apps SDK. */
const securitySchemes = fc.array(
  fc.oneof(
    fc.constant({ type: 'noauth' }),
    fc.record({ type: fc.constant('oauth2'), scopes: fc.array(texts) }, { requiredKeys: ['type'] }),
  ),
  { maxLength: 2 },
);
/** A list entry's `_meta`: any, or other keys then `securitySchemes`, as tools list it. */
const entryMetas = fc.oneof(
  metas,
  fc.tuple(metas, securitySchemes).map(([meta, schemes]) => ({
    ...meta,
    securitySchemes: schemes,
  })),
);
/** An endpoint's cache hints: any list, any field, each at will. */
const cacheHint = fc.record(
  {
    ttlMs: fc.oneof(fc.nat(), fc.constantFrom(0, Number.MAX_SAFE_INTEGER)),
    cacheScope: fc.constantFrom('public', 'private'),
  },
  { requiredKeys: [] },
);
const cacheHints: fc.Arbitrary<McpCacheHints> = fc.record(
  { tools: cacheHint, resources: cacheHint, resourceTemplates: cacheHint, prompts: cacheHint },
  { requiredKeys: [] },
);
const contents = fc.array(
  fc.oneof(
    fc.record({ type: fc.constant('text'), text: texts }),
    fc.record({ type: fc.constant('image'), data: fc.base64String(), mimeType: texts }),
  ),
  { maxLength: 3 },
);
/** A `tools/call` result, with or without `_meta`, its keys in any order, extra keys too. */
const callResults = fc
  .record(
    {
      content: contents,
      structuredContent: fc.dictionary(keys, json, { maxKeys: 4 }),
      isError: fc.boolean(),
      _meta: metas,
    },
    { requiredKeys: [] },
  )
  .chain((result) =>
    fc
      .tuple(
        fc.shuffledSubarray(Object.keys(result), { minLength: Object.keys(result).length }),
        fc.dictionary(keys, json, { maxKeys: 2 }),
      )
      .map(([order, extra]) => {
        const shuffled: Record<string, unknown> = {};
        for (const [key, value] of Object.entries(extra)) {
          if (key !== '_meta' && key !== '__proto__') shuffled[key] = value;
        }
        for (const key of order) shuffled[key] = (result as Record<string, unknown>)[key];
        return shuffled;
      }),
  );
const readResults = fc.record({
  contents: fc.array(
    fc.record(
      { uri: texts, mimeType: texts, text: texts, _meta: metas },
      { requiredKeys: ['uri', 'text'] },
    ),
    { maxLength: 3 },
  ),
});
/** A list's entries, as the SDK leaves them on both eras (no `execution`, object schemas). */
const entries = fc.array(
  fc.record(
    {
      name: texts,
      title: texts,
      description: texts,
      inputSchema: fc.record({ type: fc.constant('object'), properties: fc.constant({}) }),
      _meta: entryMetas,
    },
    { requiredKeys: ['name'] },
  ),
  { maxLength: 4 },
);
const listMethods = fc.constantFrom(...(Object.keys(LIST_KEYS) as ListMethod[]));
/** JSON-RPC error codes but -32002, which the SDK writes as -32602. */
const codes = fc
  .oneof(fc.constantFrom(-32600, -32601, -32602, -32603, -32003), fc.integer())
  .filter((code) => code !== -32002);
const errors = fc
  .tuple(codes, texts, fc.option(json, { nil: undefined }))
  .map(([code, message, data]) => new ProtocolError(code, message, data));
const notifications = fc.array(
  fc.record({
    method: fc.constant('notifications/message'),
    params: fc.record({
      level: fc.constantFrom('debug', 'info', 'warning', 'error'),
      logger: texts,
      data: json,
    }),
  }),
  { minLength: 1, maxLength: 3 },
);

function check<Ts>(property: fc.IAsyncProperty<Ts>): Promise<void> {
  return fc.assert(property, { seed: SEED, numRuns: RUNS });
}

describe('the answer writer writes the bytes the SDK writes', () => {
  it('for a tools/call result, with or without _meta, on both eras', async () => {
    await check(
      fc.asyncProperty(eras, ids, callResults, async (era, id, result) => {
        const writer = new AnswerWriter(SERVER_INFO);
        const recorder = new Recorder();
        writer.writeAnswer(recorder.target, era, writer.resultText(era, 'tools/call', id, result));
        expectSameAnswer(recorder.written(), await sdkAnswer(era, 'tools/call', id, { result }));
      }),
    );
  });

  it('for a resources/read result (a cacheable one on the 2026 era)', async () => {
    await check(
      fc.asyncProperty(eras, ids, readResults, async (era, id, result) => {
        const writer = new AnswerWriter(SERVER_INFO);
        const recorder = new Recorder();
        const text = writer.resultText(era, 'resources/read', id, result);
        writer.writeAnswer(recorder.target, era, text);
        expectSameAnswer(
          recorder.written(),
          await sdkAnswer(era, 'resources/read', id, { result }),
        );
      }),
    );
  });

  it('for every list, answered again from its remembered start with another id', async () => {
    await check(
      fc.asyncProperty(
        eras,
        listMethods,
        entries,
        fc.array(ids, { minLength: 2, maxLength: 2 }),
        async (era, method, list, answered) => {
          const writer = new AnswerWriter(SERVER_INFO);
          const frozen = Object.freeze(list);
          for (const id of answered) {
            const recorder = new Recorder();
            writer.writeList(recorder.target, era, method, id, frozen);
            const result = { [LIST_KEYS[method]]: frozen };
            expectSameAnswer(recorder.written(), await sdkAnswer(era, method, id, { result }));
          }
        },
      ),
    );
  });

  it('for every list with cache hints, each list its own, answered again with another id', async () => {
    await check(
      fc.asyncProperty(
        eras,
        listMethods,
        entries,
        cacheHints,
        fc.array(ids, { minLength: 2, maxLength: 2 }),
        async (era, method, list, hints, answered) => {
          const writer = new AnswerWriter(SERVER_INFO, hints);
          const frozen = Object.freeze(list);
          for (const id of answered) {
            const recorder = new Recorder();
            writer.writeList(recorder.target, era, method, id, frozen);
            const result = { [LIST_KEYS[method]]: frozen };
            const sdk = await sdkAnswer(era, method, id, { result }, hints);
            expectSameAnswer(recorder.written(), sdk);
          }
        },
      ),
    );
  });

  it('for an error a handler throws, with and without data', async () => {
    await check(
      fc.asyncProperty(
        eras,
        fc.constantFrom<Method>('tools/call', 'resources/read', 'tools/list'),
        ids,
        errors,
        async (era, method, id, error) => {
          const writer = new AnswerWriter(SERVER_INFO);
          const recorder = new Recorder();
          writer.writeAnswer(recorder.target, era, writer.errorText(id, refusalOf(error)));
          expectSameAnswer(recorder.written(), await sdkAnswer(era, method, id, { error }));
        },
      ),
    );
  });

  it('for a 2025-era call that logs: its notifications, then its result or error', async () => {
    await check(
      fc.asyncProperty(
        ids,
        notifications,
        fc.oneof(
          callResults.map((result) => ({ result })),
          errors.map((error) => ({ error })),
        ),
        async (id, sent, outcome) => {
          const writer = new AnswerWriter(SERVER_INFO);
          const recorder = new Recorder();
          for (const { method, params } of sent) {
            writer.writeNotification(recorder.target, method, params);
          }
          const text =
            'error' in outcome
              ? writer.errorText(id, refusalOf(outcome.error))
              : writer.resultText('legacy', 'tools/call', id, outcome.result);
          writer.writeAnswer(recorder.target, 'legacy', text);
          const sdk = await sdkAnswer('legacy', 'tools/call', id, {
            notifications: sent,
            ...outcome,
          });
          expectSameAnswer(recorder.written(), sdk);
        },
      ),
    );
  });

  it.each<[string, McpCacheHints | undefined]>([
    ['without cache hints', undefined],
    ['with cache hints', { tools: { ttlMs: 60_000, cacheScope: 'public' }, prompts: { ttlMs: 5 } }],
  ])(
    'for one writer answering every kind in turn, %s (what it remembers is per kind)',
    async (_, hints) => {
      const writer = new AnswerWriter(SERVER_INFO, hints);
      const list = Object.freeze([{ name: 'echo', inputSchema: { type: 'object' } }]);
      for (const era of ['modern', 'legacy', 'modern'] as const) {
        for (const [method, result] of [
          ['tools/call', { content: [] }],
          ['resources/read', { contents: [] }],
          ['tools/call', {}],
          ['resources/read', { contents: [{ uri: 'demo://a', text: 'ü' }] }],
        ] as const) {
          const recorder = new Recorder();
          writer.writeAnswer(recorder.target, era, writer.resultText(era, method, 7, result));
          expectSameAnswer(recorder.written(), await sdkAnswer(era, method, 7, { result }, hints));
        }
        for (const method of ['tools/list', 'prompts/list', 'resources/list'] as const) {
          const recorder = new Recorder();
          writer.writeList(recorder.target, era, method, 'x', list);
          const result = { [LIST_KEYS[method]]: list };
          expectSameAnswer(
            recorder.written(),
            await sdkAnswer(era, method, 'x', { result }, hints),
          );
        }
      }
    },
  );
});
