/**
 * Inputs are bounded before they are matched or parsed, on every surface:
 *
 * - `resources/read` never matches a URI longer than `MAX_TEMPLATE_URI_LENGTH` against a
 *   template (a 120 KB URI against `files://{name}.{ext}` used to block the server for 21 s
 *   while a backtracking regular expression tried every split): it is answered `-32602` as a URI
 *   nothing serves, without being repeated back, and the next request is served at once; a URI
 *   of the longest length that splits every way against a template of many meeting variables
 *   is matched in work linear in its length (`UriTemplate.lastMatchSteps` counts every
 *   character matching reads: twice the URI, twice the steps), in-process and over HTTP;
 * - arguments nested deeper than `MAX_JSON_DEPTH` never reach the client as a stack overflow's
 *   text: in-process and over stdio (no body bound there) a schema that cannot follow them
 *   answers `VALIDATION_ERROR`; over HTTP the body is refused on its bytes with `-32700` (a tool
 *   that asks, on the 2026-07-28 era, used to answer `-32603 "Maximum call stack size
 *   exceeded"`).
 */
import { afterAll, afterEach, describe, expect, it, jest } from '@jest/globals';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { MAX_JSON_DEPTH } from '../../lib/core/json-depth.js';
import { MAX_TEMPLATE_URI_LENGTH, UriTemplate } from '../../lib/core/uri-template.js';
import {
  createToolInvoker,
  defineResourceTemplate,
  defineRuntimeTool,
  ToolsModule,
} from '../../lib/index.js';
import { serveStdio } from '../../lib/mcp/index.js';
import { TestApps } from '../fixtures/apps.js';
import { waitFor } from '../fixtures/timing.js';
import {
  ADAPTERS,
  callBody,
  ERAS,
  eraHeaders,
  finalMessage,
  LEGACY_VERSION,
  MODERN_META,
  post,
  toolPayload,
  type Era,
} from './support.js';

/** How often each operation ran its handler. */
const ran = { file: 0, json: 0, ask: 0 };

const file = defineResourceTemplate({
  uriTemplate: 'files://{name}.{ext}',
  name: 'file',
  description: 'A file by name and extension',
  variables: z.object({ name: z.string(), ext: z.string() }),
  read: ({ input }) => {
    ran.file++;
    return `${input.name} (${input.ext})`;
  },
});

/** A template of eight variables that meet at dots: a backtracking matcher tries n⁷ splits. */
const GRID = 'grid://{a}.{b}.{c}.{d}.{e}.{f}.{g}.{h}';
const grid = defineResourceTemplate({
  uriTemplate: GRID,
  name: 'grid',
  variables: z.object(Object.fromEntries([...'abcdefgh'].map((name) => [name, z.string()]))),
  read: () => 'cell',
});

/** A URI of `length` characters that splits every way against {@link GRID} and matches in none. */
const adversarialGridUri = (length: number) =>
  `grid://${'a.'.repeat(length)}`.slice(0, length - 1) + '/';

/**
 * The steps the template matching reads took while `read` ran, by the templates' own step
 * counter (read after each match), and how many matches there were.
 */
async function matchingSteps(read: () => Promise<unknown>) {
  const match = jest.spyOn(UriTemplate.prototype, 'match');
  try {
    await read();
    const steps = match.mock.contexts.map((template) => (template as UriTemplate).lastMatchSteps);
    return { matches: steps.length, steps: steps.reduce((sum, count) => sum + count, 0) };
  } finally {
    match.mockRestore();
  }
}

/** A tool whose schema follows its argument as deep as it goes (recursively). */
const storeDocument = defineRuntimeTool({
  identity: { serviceName: 'docs', action: 'store', method: 'POST' },
  description: 'Store a JSON document',
  input: z.object({ document: z.json() }),
  handler: () => {
    ran.json++;
    return { stored: true };
  },
});

/** A tool that asks: a 2026-era call of it seals its arguments' digest into the requestState. */
const confirmStore = defineRuntimeTool({
  identity: { serviceName: 'docs', action: 'confirm_store', method: 'POST' },
  description: 'Store a document once the user confirms',
  input: z.object({ document: z.unknown() }),
  asks: { confirm: true },
  handler: () => {
    ran.ask++;
    return { stored: true };
  },
});

const operations = [file, grid, storeDocument, confirmStore];

/** A value nested `depth` levels deep (objects and arrays in turn). */
function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { a: value } : [value];
  return value;
}

/** JSON text of a document nested `depth` levels deep, written without recursion. */
function nestedText(depth: number): string {
  return `${'{"a":['.repeat(depth / 2)}"leaf"${']}'.repeat(depth / 2)}`;
}

const TOO_DEEP_ISSUE = {
  path: '(root)',
  code: 'too_deep',
  message: `Too deep: expected at most ${MAX_JSON_DEPTH} levels of arrays and objects`,
};

describe('template matching cost', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('in-process: an adversarial URI of the longest length is matched in linear steps, and refused', async () => {
    const invoker = createToolInvoker(operations, { logger: { error: () => {}, warn: () => {} } });
    const read = (uri: string) => () =>
      invoker.readResource(uri, { transport: 'MCP', source: 'mcp' }).catch((error) => error);
    const longest = await matchingSteps(read(adversarialGridUri(MAX_TEMPLATE_URI_LENGTH)));
    const half = await matchingSteps(read(adversarialGridUri(MAX_TEMPLATE_URI_LENGTH / 2)));
    // Both templates tried it (`files://` refuses at its first literal, at no cost).
    expect(longest.matches).toBe(2);
    // A few reads of the URI per part (15 parts): ~0.3 M steps, where n² alone is 67 M.
    expect(longest.steps).toBeGreaterThan(MAX_TEMPLATE_URI_LENGTH);
    expect(longest.steps).toBeLessThan(8 * 16 * (MAX_TEMPLATE_URI_LENGTH + 1));
    expect(longest.steps / half.steps).toBeLessThan(2.1);
    expect(await read(adversarialGridUri(MAX_TEMPLATE_URI_LENGTH))()).toMatchObject({
      code: 'NOT_FOUND',
    });
    // The same URI with its last character fixed matches: the bound is on work, not on shape.
    const fixed = `${adversarialGridUri(MAX_TEMPLATE_URI_LENGTH).slice(0, -1)}a`;
    expect(await read(fixed)()).toMatchObject({ ok: true });
  });
});

describe('arguments nested too deep for validation', () => {
  it('in-process: a VALIDATION_ERROR saying so, not an internal error, and nothing logged', async () => {
    const logged: unknown[] = [];
    const logger = { error: (...args: unknown[]) => void logged.push(args), warn: () => {} };
    const invoker = createToolInvoker(operations, { logger });
    const before = ran.json;
    const deep = await invoker.invoke(
      'docs_store',
      { document: nested(20_000) },
      { transport: 'AGENT' },
    );
    expect(deep).toEqual({
      ok: false,
      error: {
        code: 'VALIDATION_ERROR',
        message: `Invalid input: (root): ${TOO_DEEP_ISSUE.message}`,
        retryable: false,
        details: { target: 'input', issues: [TOO_DEEP_ISSUE] },
      },
    });
    expect(logged).toEqual([]);
    // A document the schema can follow is stored as before.
    expect(
      await invoker.invoke('docs_store', { document: nested(100) }, { transport: 'AGENT' }),
    ).toEqual({ ok: true, data: { stored: true } });
    expect(ran.json).toBe(before + 1);
  });

  it('over stdio (no body bound): the same VALIDATION_ERROR as a tool error', async () => {
    const invoker = createToolInvoker(operations, { logger: { error: () => {}, warn: () => {} } });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = serveStdio(invoker, { transport: serverSide as never });
    const received: any[] = [];
    clientSide.onmessage = (message: unknown) => void received.push(message);
    await clientSide.start();
    try {
      await clientSide.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: LEGACY_VERSION,
          capabilities: {},
          clientInfo: { name: 'deep', version: '1.0.0' },
        },
      });
      expect(await waitFor(() => received.length === 1)).toBe(true);
      await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await clientSide.send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'docs_store', arguments: { document: nested(20_000) } },
      });
      expect(await waitFor(() => received.length === 2)).toBe(true);
    } finally {
      await clientSide.close();
      await server.close();
    }
    const { result } = received[1];
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0].text)).toEqual({
      error: 'VALIDATION_ERROR',
      message: `Invalid input: (root): ${TOO_DEEP_ISSUE.message}`,
      retryable: false,
      details: { target: 'input', issues: [TOO_DEEP_ISSUE] },
    });
  });
});

describe.each(ADAPTERS)('bounded inputs over HTTP (%s)', (adapter) => {
  const apps = new TestApps();
  afterAll(() => apps.closeAll());

  async function serve() {
    const { url } = await apps.listen(
      {
        imports: [
          ToolsModule.forRoot({
            registry: operations,
            mcp: { requestState: { key: 'k'.repeat(32) } },
          }),
        ],
      },
      adapter,
    );
    return `${url}/mcp`;
  }

  function readBody(era: Era, uri: string): string {
    return JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'resources/read',
      params: era === 'modern' ? { uri, _meta: MODERN_META } : { uri },
    });
  }

  it.each(ERAS)(
    '%s era: a URI longer than MAX_TEMPLATE_URI_LENGTH is answered -32602 at once, unread and not repeated back',
    async (era) => {
      const mcp = await serve();
      const read = (uri: string) =>
        post(mcp, readBody(era, uri), eraHeaders(era, 'resources/read', uri), {
          timeoutMs: 10_000,
        });
      const before = ran.file;

      const ordinary = await read('files://report.v2.pdf');
      expect(finalMessage(ordinary)?.result?.contents).toEqual([
        { uri: 'files://report.v2.pdf', text: 'report.v2 (pdf)' },
      ]);
      expect(ran.file).toBe(before + 1);

      // The URI would match the template; a header carries the 2026 era's (Node caps headers
      // at 16 KB), so this one is just over the bound.
      const long = `files://${'a.'.repeat(MAX_TEMPLATE_URI_LENGTH / 2)}pdf`;
      const refused = await read(long);
      expect(finalMessage(refused)).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: {
          code: -32602,
          message: `Resource not found: the URI is longer than ${MAX_TEMPLATE_URI_LENGTH} characters.`,
        },
      });
      expect(ran.file).toBe(before + 1);
    },
  );

  it.each(ERAS)(
    '%s era: an adversarial URI of the longest length against eight meeting variables is refused after linear work',
    async (era) => {
      const mcp = await serve();
      const read = (uri: string) => () =>
        post(mcp, readBody(era, uri), eraHeaders(era, 'resources/read', uri), {
          timeoutMs: 10_000,
        });
      const longest = await matchingSteps(read(adversarialGridUri(MAX_TEMPLATE_URI_LENGTH)));
      const half = await matchingSteps(read(adversarialGridUri(MAX_TEMPLATE_URI_LENGTH / 2)));
      expect(longest.matches).toBeGreaterThanOrEqual(1);
      expect(longest.steps).toBeLessThan(8 * 16 * (MAX_TEMPLATE_URI_LENGTH + 1));
      expect(longest.steps / half.steps).toBeLessThan(2.1);
      const refused = await read(adversarialGridUri(MAX_TEMPLATE_URI_LENGTH))();
      expect(finalMessage(refused)?.error?.code).toBe(-32602);
    },
  );

  it('2025 era: a 120 KB URI of many splits is answered at once, and the next request too', async () => {
    const mcp = await serve();
    const headers = eraHeaders('legacy', 'resources/read');
    // Before the bound, a regular expression tried each split of it: 21 s of a blocked server.
    const adversarial = `files://${'a.'.repeat(60_000)}/`;
    const refused = await post(mcp, readBody('legacy', adversarial), headers, {
      timeoutMs: 10_000,
    });
    expect(finalMessage(refused)?.error?.code).toBe(-32602);
    const next = await post(mcp, readBody('legacy', 'files://a.txt'), headers);
    expect(finalMessage(next)?.result?.contents).toEqual([
      { uri: 'files://a.txt', text: 'a (txt)' },
    ]);
  });

  it.each(ERAS)(
    '%s era: a call nested 20,000 deep is refused with -32700 on its bytes; no stack overflow text reaches the client',
    async (era) => {
      const mcp = await serve();
      const before = { ...ran };
      for (const name of ['docs_confirm_store', 'docs_store']) {
        const body = callBody(era, name, { document: '@' }).replace('"@"', nestedText(20_000));
        const answer = await post(mcp, body, eraHeaders(era, 'tools/call', name));
        expect({ status: answer.status, message: finalMessage(answer) }).toEqual({
          status: 400,
          message: {
            jsonrpc: '2.0',
            id: null,
            error: {
              code: -32700,
              message: `Parse error: the body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`,
            },
          },
        });
        expect(answer.text).not.toMatch(/call stack/i);
      }
      expect(ran).toEqual(before);

      // Within the bound, the call runs.
      const within = await post(
        mcp,
        callBody(era, 'docs_store', { document: nested(100) }),
        eraHeaders(era, 'tools/call', 'docs_store'),
      );
      expect(toolPayload(within)).toEqual({ isError: false, json: { stored: true } });
    },
  );
});
