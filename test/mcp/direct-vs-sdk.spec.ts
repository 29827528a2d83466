import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  Server,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { directAnswersModule, directTools } from '../fixtures/direct-tools.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';
import {
  ACCEPT,
  eraHeaders,
  LEGACY_VERSION,
  MODERN_META,
  MODERN_VERSION,
  post,
  type Era,
} from '../fixtures/mcp-http.js';

/**
 * The MCP fast path (DESIGN.md): the endpoint answers a request itself only where it answers
 * exactly what the SDK would. Generated requests — well-formed ones the direct path must take,
 * and mutations of them in every field that routes or validates a request — go to an app
 * answering directly and to one routing everything through the SDK; status, media type and the
 * JSON-RPC messages (ids aside) must be the same.
 */
const SEED = 20260728;
const RUNS_PER_ERA = 300;

const TOOL_NAMES = directTools.map((tool) => tool.name);

// ---------------------------------------------------------------------------------------------
// Generated requests.

/** A key or header the request leaves out. */
const ABSENT = Symbol('absent');
const LIST_METHODS = [
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'prompts/list',
] as const;
type Method = (typeof LIST_METHODS)[number] | 'tools/call' | 'resources/read';
/** URIs a resource or template serves (a read the direct path answers), and others. */
const READABLE = ['demo://readme', 'demo://notes/1', 'demo://notes/a-b'];
const URIS = [...READABLE, 'demo://locked', 'demo://nope', 'demo://notes/', '', 'DEMO://README'];

interface Case {
  era: Era;
  method: Method;
  id: unknown;
  params: unknown;
  headers: Record<string, string | typeof ABSENT>;
  /** Well-formed: the direct path must answer it. */
  wellFormed: boolean;
  /** Replaces `"2.0"`. */
  jsonrpc?: unknown;
  /** Keys added to the message beside jsonrpc, id, method and params. */
  top?: Record<string, unknown>;
}

/** A copy of `record` with `entries` as own keys, `__proto__` included. */
function withKeys(record: object, entries: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...record };
  for (const [key, value] of Object.entries(entries)) {
    Object.defineProperty(copy, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/** Drops the keys whose value is ABSENT. */
function present<T extends Record<string, unknown>>(record: T): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== ABSENT));
}

const json = fc.jsonValue({ maxDepth: 2 });
/** Any JSON value, weighted towards the edge cases of each type. */
const anyValue = fc.oneof(
  json,
  fc.constantFrom<unknown>(null, '', 0, -1, 1.5, 1e21, true, false, [], {}, [{}], 'echo', '5'),
);
const maybe = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof(fc.constant<typeof ABSENT>(ABSENT), arbitrary);

const envelope = (era: Era) => (era === 'modern' ? { ...MODERN_META } : ABSENT);

/** A request the direct path must answer: its era's headers, a known tool, object arguments. */
function wellFormed(era: Era): fc.Arbitrary<Case> {
  const id = fc.oneof(fc.integer(), fc.string({ maxLength: 6 }));
  const legacyMeta = fc.constantFrom<Record<string, unknown> | typeof ABSENT>(ABSENT, {});
  const meta = era === 'modern' ? fc.constant(envelope(era)) : legacyMeta;
  const args = fc.oneof(
    fc.record({ text: fc.string({ maxLength: 8 }), n: fc.integer() }, { requiredKeys: ['text'] }),
    fc.constant({}),
    fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 3 }),
  );
  const call = fc
    .record({ id, name: fc.constantFrom(...TOOL_NAMES), args: maybe(args), meta })
    .map(({ id, name, args, meta }) => ({
      era,
      method: 'tools/call' as const,
      id,
      params: present({ name, arguments: args, _meta: meta }),
      headers: eraHeaders(era, 'tools/call', name),
      wellFormed: true,
    }));
  const list = fc
    .record({ id, meta, method: fc.constantFrom(...LIST_METHODS) })
    .map(({ id, meta, method }) => ({
      era,
      method,
      id,
      params: present({ _meta: meta }),
      headers: eraHeaders(era, method),
      wellFormed: true,
    }));
  const read = fc
    .record({ id, meta, uri: fc.constantFrom(...READABLE) })
    .map(({ id, meta, uri }) => ({
      era,
      method: 'resources/read' as const,
      id,
      params: present({ uri, _meta: meta }),
      headers: eraHeaders(era, 'resources/read', uri),
      wellFormed: true,
    }));
  return fc.oneof(call, list, read);
}

const META_KEYS = [
  'progressToken',
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  'io.modelcontextprotocol/related-task',
  'io.modelcontextprotocol/other',
  'traceparent',
  'x',
];
const VERSIONS = [
  ...SUPPORTED_PROTOCOL_VERSIONS,
  MODERN_VERSION,
  '2025-01-01',
  '2027-01-01',
  'garbage',
  '',
  ` ${LEGACY_VERSION}`,
  `${MODERN_VERSION} `,
  `${LEGACY_VERSION}, ${MODERN_VERSION}`,
];
const ACCEPTS = [
  ACCEPT,
  'text/event-stream, application/json',
  'application/json',
  'text/event-stream',
  '*/*',
  'application/*, text/*',
  'application/json;q=0.9, text/event-stream;q=0.1',
  'APPLICATION/JSON, TEXT/EVENT-STREAM',
  'application/jsonl, text/event-streams',
  'application/json, text/event-stream, */*',
  '',
];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/json;charset=UTF-8',
  'application/json-patch+json',
  'application/vnd.api+json',
  'application/jsonx',
  'text/plain',
];
const METHODS = [
  ...LIST_METHODS,
  'tools/call',
  'resources/read',
  'TOOLS/CALL',
  ' tools/call',
  'ping',
  '',
];
// `=?base64?ZWNobw==?=` is the Mcp-Name header's encoding of `echo`.
const NAMES = [...TOOL_NAMES, 'nope', '', ' echo', 'ECHO', '=?base64?ZWNobw==?='];
const { [CLIENT_INFO_META_KEY]: _clientInfo, ...WITHOUT_CLIENT_INFO } = MODERN_META;
/** Values of `_meta` keys: anything, and what each known key expects or nearly so. */
const metaValue = fc.oneof(
  anyValue,
  fc.constantFrom<unknown>(
    ...VERSIONS,
    'debug',
    'emergency',
    'p-1',
    7,
    { name: 'client', version: '1.0.0' },
    { name: 'client' },
    { name: 5, version: '1' },
    { elicitation: {} },
    { sampling: 5 },
    { taskId: 't-1' },
  ),
);

/** A well-formed request with some of its fields replaced by anything. */
function mutated(era: Era): fc.Arbitrary<Case> {
  // One to three fields changed at a time, so most mutations stay close to the direct path.
  const fields = {
    method: fc.constantFrom<Method>(...LIST_METHODS, 'tools/call', 'resources/read'),
    uri: maybe(fc.oneof(fc.constantFrom(...URIS), anyValue)),
    params: maybe(anyValue),
    name: maybe(fc.oneof(fc.constantFrom(...NAMES), anyValue)),
    arguments: maybe(anyValue),
    meta: maybe(fc.oneof(anyValue, fc.constantFrom<unknown>(MODERN_META, WITHOUT_CLIENT_INFO, {}))),
    metaExtra: fc.dictionary(fc.oneof(fc.constantFrom(...META_KEYS), fc.string()), metaValue, {
      minKeys: 1,
      maxKeys: 2,
    }),
    argumentKeys: fc.dictionary(
      fc.constantFrom('__proto__', 'constructor', 'toString', 'text', 'n', ''),
      anyValue,
      { minKeys: 1, maxKeys: 2 },
    ),
    /** The envelope's protocol version and the header both. */
    claim: fc.constantFrom(...VERSIONS),
    cursor: maybe(anyValue),
    top: fc.dictionary(
      fc.constantFrom('result', 'error', 'extra', '_meta', 'params2', ''),
      anyValue,
      { minKeys: 1, maxKeys: 2 },
    ),
    extra: fc.dictionary(
      fc.oneof(fc.constantFrom('task', 'cursor2', 'requestState', 'inputResponses'), fc.string()),
      anyValue,
      { minKeys: 1, maxKeys: 2 },
    ),
    id: maybe(anyValue),
    jsonrpc: maybe(fc.constantFrom<unknown>('1.0', 2, null)),
    version: maybe(fc.constantFrom(...VERSIONS)),
    mcpMethod: maybe(fc.constantFrom(...METHODS)),
    mcpName: maybe(fc.constantFrom(...NAMES)),
    accept: maybe(fc.constantFrom(...ACCEPTS)),
    contentType: fc.constantFrom(...CONTENT_TYPES),
    sessionId: fc.constant('session-1'),
  };
  type Mutation = {
    [K in keyof typeof fields]?: (typeof fields)[K] extends fc.Arbitrary<infer T> ? T : never;
  };
  const single = fc.oneof(
    ...Object.entries(fields).map(([key, arbitrary]) =>
      (arbitrary as fc.Arbitrary<unknown>).map((value) => ({ [key]: value }) as Mutation),
    ),
  );
  const mutation = fc
    .array(single, { minLength: 1, maxLength: 3 })
    .map((changes) => Object.assign({}, ...changes) as Mutation);
  return fc.tuple(wellFormed(era), mutation).map(([base, change]) => {
    const method = change.method ?? base.method;
    const params = { ...(base.params as Record<string, unknown>) };
    const set = (key: string, value: unknown) => {
      if (value === ABSENT) delete params[key];
      else if (value !== undefined) params[key] = value;
    };
    set('name', change.name);
    set('uri', change.uri);
    set('arguments', change.arguments);
    set('_meta', change.meta);
    if (change.metaExtra) {
      const meta = params._meta;
      params._meta =
        typeof meta === 'object' && meta !== null && !Array.isArray(meta)
          ? { ...meta, ...change.metaExtra }
          : { ...change.metaExtra };
    }
    if (change.argumentKeys) {
      const args = params.arguments;
      params.arguments = withKeys(
        typeof args === 'object' && args !== null && !Array.isArray(args) ? args : {},
        change.argumentKeys,
      );
    }
    if (change.claim !== undefined) {
      params._meta = { ...MODERN_META, [PROTOCOL_VERSION_META_KEY]: change.claim };
    }
    set('cursor', change.cursor);
    const withExtra = change.extra ? withKeys(params, change.extra) : params;
    const headers = { ...base.headers } as Case['headers'];
    const header = (name: string, value: string | typeof ABSENT | undefined) => {
      if (value !== undefined) headers[name] = value;
    };
    header('mcp-protocol-version', change.claim);
    header('mcp-protocol-version', change.version);
    header('mcp-method', change.mcpMethod ?? (era === 'modern' ? method : undefined));
    // A renamed tool keeps its header in step, unless the header itself is mutated.
    const name = params.name;
    if (era === 'modern' && method === 'tools/call' && typeof name === 'string') {
      headers['mcp-name'] = name;
    }
    if (era === 'modern' && method === 'resources/read' && typeof params.uri === 'string') {
      headers['mcp-name'] = params.uri;
    }
    header('mcp-name', change.mcpName);
    header('accept', change.accept);
    header('content-type', change.contentType);
    header('mcp-session-id', change.sessionId);
    return {
      era,
      method,
      id: 'id' in change ? change.id : base.id,
      params: change.params !== undefined ? change.params : withExtra,
      headers,
      wellFormed: false,
      ...(change.jsonrpc !== undefined && { jsonrpc: change.jsonrpc }),
      ...(change.top !== undefined && { top: change.top }),
    };
  });
}

const requests = (era: Era) =>
  fc.oneof({ arbitrary: wellFormed(era), weight: 1 }, { arbitrary: mutated(era), weight: 2 });

// ---------------------------------------------------------------------------------------------
// Sending one request to both apps.

function bodyOf(request: Case): string {
  const message = present({
    jsonrpc: 'jsonrpc' in request ? request.jsonrpc : '2.0',
    id: request.id,
    method: request.method,
    params: request.params,
  });
  return JSON.stringify(request.top ? withKeys(message, request.top) : message);
}

/** What must be the same on both paths: status, media type, and the messages without their id. */
async function answer(url: string, request: Case) {
  const headers = present(request.headers) as Record<string, string>;
  const sent = await post(url, bodyOf(request), headers);
  const type = String(sent.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  const messages = sent.messages?.map((message) => {
    if (typeof message !== 'object' || message === null) return message;
    const { id: _id, ...rest } = message;
    return rest;
  });
  return { status: sent.status, type, messages: messages ?? sent.text };
}

/**
 * The differences known before this test (always run first): a `tools/call` whose arguments are
 * not an object, or whose `_meta` is not an object, is an SDK error, never a tool result.
 */
function knownDifferences(era: Era): [Case][] {
  const request = (params: Record<string, unknown>): [Case] => [
    {
      era,
      method: 'tools/call',
      id: 1,
      params,
      headers: eraHeaders(era, 'tools/call', 'plain'),
      wellFormed: false,
    },
  ];
  const meta = envelope(era);
  return [
    ...[null, 'text', [{}], 5].map((args) =>
      request(present({ name: 'plain', arguments: args, _meta: meta })),
    ),
    ...[5, null, []].map((meta) => request({ name: 'plain', arguments: {}, _meta: meta })),
  ];
}

describe.each(ADAPTERS)(
  'direct answers equal SDK answers for generated requests (%s)',
  (adapter) => {
    const apps = new TestApps();
    let directUrl: string;
    let sdkUrl: string;
    // Every SDK answer to a request that reaches a tool connects a per-request server: spied
    // per adapter, while its apps run.
    let connect: ReturnType<typeof spyOnConnect>;
    const spyOnConnect = () => jest.spyOn(Server.prototype, 'connect');
    /** The answers the direct app gave without an SDK server, per era and kind. */
    const direct: Record<string, number> = {};

    beforeAll(async () => {
      connect = spyOnConnect();
      const boot = async (directAnswers: boolean) =>
        `${(await apps.listen({ imports: [directAnswersModule(directAnswers)] }, adapter)).url}/mcp`;
      directUrl = await boot(true);
      sdkUrl = await boot(false);
    });
    afterAll(async () => {
      connect.mockRestore();
      await apps.closeAll();
    });

    it.each(['legacy', 'modern'] as const)(
      '%s era',
      async (era) => {
        await fc.assert(
          fc.asyncProperty(requests(era), async (request) => {
            const before = connect.mock.calls.length;
            const fromDirect = await answer(directUrl, request);
            const withoutSdk = connect.mock.calls.length === before;
            const fromSdk = await answer(sdkUrl, request);
            expect(fromDirect).toEqual(fromSdk);

            const result = Array.isArray(fromDirect.messages)
              ? fromDirect.messages.at(-1)?.result
              : undefined;
            const answeredDirectly =
              withoutSdk && fromDirect.status === 200 && result !== undefined;
            if (request.wellFormed) expect(answeredDirectly).toBe(true);
            if (answeredDirectly) {
              const kind =
                request.method === 'resources/read'
                  ? 'read'
                  : request.method !== 'tools/call'
                    ? request.method === 'tools/list'
                      ? 'list'
                      : 'operation list'
                    : result.isError
                      ? 'failure'
                      : 'success';
              direct[`${era} ${kind}`] = (direct[`${era} ${kind}`] ?? 0) + 1;
            }
          }),
          { seed: SEED, numRuns: RUNS_PER_ERA, examples: knownDifferences(era) },
        );
        // The direct path really answered lists, successful calls and failed calls.
        for (const kind of ['list', 'operation list', 'read', 'success', 'failure']) {
          expect(direct[`${era} ${kind}`]).toBeGreaterThan(10);
        }
      },
      120_000,
    );

    it('gives a remembered verdict only to the same envelope', async () => {
      const call = (meta: unknown): Case => ({
        era: 'modern',
        method: 'tools/call',
        id: 1,
        params: { name: 'plain', arguments: {}, _meta: meta },
        headers: eraHeaders('modern', 'tools/call', 'plain'),
        wellFormed: false,
      });
      const info = MODERN_META[CLIENT_INFO_META_KEY] as Record<string, unknown>;
      const variants: unknown[] = [
        { ...MODERN_META, [CLIENT_INFO_META_KEY]: { ...info, name: 5 } },
        { ...MODERN_META, [CLIENT_INFO_META_KEY]: { ...info, version: ['1'] } },
        { ...MODERN_META, [CLIENT_INFO_META_KEY]: [info] },
        { ...MODERN_META, [CLIENT_CAPABILITIES_META_KEY]: null },
        { ...MODERN_META, [CLIENT_CAPABILITIES_META_KEY]: { elicitation: 'yes' } },
        { ...MODERN_META, [PROTOCOL_VERSION_META_KEY]: '2025-11-25' },
        Object.fromEntries(Object.entries(MODERN_META).slice(1)),
        // The same envelope, its keys in another order.
        Object.fromEntries(Object.entries(MODERN_META).reverse()),
      ];
      for (const meta of variants) {
        // The well-formed envelope first, so that its verdict is the one remembered.
        for (const request of [call({ ...MODERN_META }), call(meta)]) {
          expect(await answer(directUrl, request)).toEqual(await answer(sdkUrl, request));
        }
      }
      const reordered = await answer(directUrl, call(variants.at(-1)));
      expect(reordered.messages[0].result.isError).toBeUndefined();
    });
  },
);
