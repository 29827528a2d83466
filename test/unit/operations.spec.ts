import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { of } from 'rxjs';
import { z } from 'zod';
import {
  createToolInvoker,
  currentToolCall,
  defineToolRegistry,
  ToolError,
  ToolsConfigurationError,
  type AfterToolCallEvent,
  type BeforeToolCallEvent,
  type ToolCallEvent,
  type ToolCallInfo,
  type ToolErrorEvent,
  type ToolGuard,
  type ToolGuardContext,
  type ToolHooks,
  type ToolInvokerOptions,
} from '../../lib/core/index.js';
import {
  definePrompt,
  defineResource,
  defineResourceTemplate,
  describeOperation,
  isRuntimeOperation,
  type Completer,
} from '../../lib/core/operations.js';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import { isProgrammingError } from '../../lib/core/errors.js';
import { deferred } from '../fixtures/timing.js';
import { makeLogger, makeTool } from './support.js';
import { catalogInvoker } from '../../lib/core/catalog-invoker.js';

// ---------------------------------------------------------------------------------------------
// Fixtures.

const handbook = () =>
  defineResource({
    uri: 'kb://handbook',
    name: 'kb-handbook',
    title: 'Support handbook',
    mimeType: 'text/markdown',
    read: () => '# Handbook',
  });

const SLUG = /^[a-z0-9-]+$/;

const article = (read = ({ input }: { input: { slug: string } }): unknown => `# ${input.slug}`) =>
  defineResourceTemplate({
    uriTemplate: 'kb://articles/{slug}',
    name: 'kb-article',
    title: 'Article',
    mimeType: 'text/markdown',
    variables: z.object({ slug: z.string().regex(SLUG) }),
    read: read as any,
  });

const triage = () =>
  definePrompt({
    name: 'triage_ticket',
    description: 'Triage a ticket',
    args: z.object({
      id: z.string().describe('The ticket id'),
      tone: z.enum(['formal', 'casual']).optional(),
    }),
    get: ({ input }) => `Triage ticket ${input.id}${input.tone ? ` (${input.tone})` : ''}.`,
  });

/** Hooks and a call-event listener that record what they see. */
function recorder() {
  const before: BeforeToolCallEvent[] = [];
  const after: AfterToolCallEvent[] = [];
  const errors: ToolErrorEvent[] = [];
  const events: ToolCallEvent[] = [];
  const hooks: ToolHooks = {
    beforeToolCall: (options) => void before.push(options),
    afterToolCall: (options) => void after.push(options),
    onToolError: (options) => void errors.push(options),
  };
  const options: ToolInvokerOptions = {
    hooks,
    onCallFinished: (event) => void events.push(event),
  };
  return { before, after, errors, events, options };
}

/** The value a promise rejects with (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, the promise resolved');
}

/** The error a definition throws (fails the test if it does not). */
function definitionError(define: () => unknown): Error {
  try {
    define();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the definition to throw');
}

const MCP = { transport: 'MCP' } as const;

// ---------------------------------------------------------------------------------------------

describe('definitions', () => {
  it('defines frozen runtime operations that describe themselves', () => {
    const resource = handbook();
    const template = article();
    const prompt = triage();
    for (const operation of [resource, template, prompt]) {
      expect(isRuntimeOperation(operation)).toBe(true);
      expect(Object.isFrozen(operation)).toBe(true);
      expect(Object.isFrozen(operation.operation)).toBe(true);
    }
    expect(isRuntimeOperation(makeTool())).toBe(false);
    expect(isRuntimeOperation(null)).toBe(false);
    expect(describeOperation(resource)).toMatchObject({
      kind: 'resource',
      name: 'kb-handbook',
      uri: 'kb://handbook',
      title: 'Support handbook',
      mimeType: 'text/markdown',
      identity: { serviceName: 'resources', action: 'kb-handbook', method: 'GET' },
      annotations: { readOnlyHint: true },
      transports: ['MCP', 'AGENT'],
    });
    expect(describeOperation(resource)).not.toHaveProperty('uriTemplate');
    expect(describeOperation(template)).toMatchObject({
      kind: 'resource',
      uriTemplate: 'kb://articles/{slug}',
      inputSchema: { type: 'object', properties: { slug: { type: 'string' } } },
    });
    expect(describeOperation(template)).not.toHaveProperty('uri');
    expect(describeOperation(prompt)).toMatchObject({
      kind: 'prompt',
      name: 'triage_ticket',
      description: 'Triage a ticket',
      identity: { serviceName: 'prompts', action: 'triage_ticket', method: 'GET' },
    });
  });

  describe('refuses, with a ToolsConfigurationError naming the operation', () => {
    it('a template whose variables schema has a key the template does not name', () => {
      const error = definitionError(() =>
        defineResourceTemplate({
          uriTemplate: 'kb://articles/{slug}',
          name: 'kb-article',
          variables: z.object({ slug: z.string(), lang: z.string() }),
          read: () => 'x',
        }),
      );
      expect(error).toBeInstanceOf(ToolsConfigurationError);
      expect(error.message).toBe(
        CORE_MESSAGES.templateKeys('kb-article', ['lang', 'slug'], 'kb://articles/{slug}', [
          'slug',
        ]),
      );
    });

    it('a template naming a variable its schema lacks', () => {
      const error = definitionError(() =>
        defineResourceTemplate({
          uriTemplate: 'kb://{lang}/articles/{slug}',
          name: 'kb-article',
          variables: z.object({ slug: z.string() }),
          read: () => 'x',
        }),
      );
      expect(error).toBeInstanceOf(ToolsConfigurationError);
      expect(error.message).toBe(
        CORE_MESSAGES.templateKeys('kb-article', ['slug'], 'kb://{lang}/articles/{slug}', [
          'lang',
          'slug',
        ]),
      );
    });

    it('accepts a variable the template names twice, with one key', () => {
      const template = defineResourceTemplate({
        uriTemplate: 'kb://{id}/copy/{id}',
        name: 'twice',
        variables: z.object({ id: z.string() }),
        read: () => 'x',
      });
      expect(template.name).toBe('twice');
    });

    it('a template whose variables are not a Zod object', () => {
      const error = definitionError(() =>
        defineResourceTemplate({
          uriTemplate: 'kb://articles/{slug}',
          name: 'kb-article',
          variables: z.string() as any,
          read: () => 'x',
        }),
      );
      expect(error).toBeInstanceOf(ToolsConfigurationError);
      expect(error.message).toBe(CORE_MESSAGES.templateVariables('kb-article'));
    });

    it('defineResource with a templated uri', () => {
      const error = definitionError(() =>
        defineResource({ uri: 'kb://articles/{slug}', name: 'kb-article', read: () => 'x' }),
      );
      expect(error).toBeInstanceOf(ToolsConfigurationError);
      expect(error.message).toBe(CORE_MESSAGES.resourceUri('kb-article'));
    });

    it('defineResource with an empty or missing uri', () => {
      for (const uri of ['', undefined]) {
        const error = definitionError(() =>
          defineResource({ uri, name: 'kb-empty', read: () => 'x' } as any),
        );
        expect(error).toBeInstanceOf(ToolsConfigurationError);
        expect(error.message).toBe(CORE_MESSAGES.resourceUri('kb-empty'));
      }
    });

    it('defineResourceTemplate with no variable', () => {
      for (const uriTemplate of ['kb://handbook', 'kb://{ }', undefined]) {
        const error = definitionError(() =>
          defineResourceTemplate({
            uriTemplate,
            name: 'kb-fixed',
            variables: z.object({}),
            read: () => 'x',
          } as any),
        );
        expect(error).toBeInstanceOf(ToolsConfigurationError);
        expect(error.message).toBe(CORE_MESSAGES.templateUri('kb-fixed'));
      }
    });

    it('a prompt argument that is not a string', () => {
      for (const schema of [z.number(), z.boolean(), z.string().nullable(), z.array(z.string())]) {
        const error = definitionError(() =>
          definePrompt({
            name: 'summarise',
            args: z.object({ text: z.string(), count: schema }),
            get: () => 'x',
          }),
        );
        expect(error).toBeInstanceOf(ToolsConfigurationError);
        expect(error.message).toBe(CORE_MESSAGES.promptArgument('summarise', 'count'));
      }
    });

    it('accepts string, enum, optional and defaulted prompt arguments', () => {
      const prompt = definePrompt({
        name: 'ok',
        args: z.object({
          a: z.string(),
          b: z.enum(['x', 'y']),
          c: z.string().optional(),
          d: z.string().default('d'),
        }),
        get: () => 'x',
      });
      expect(prompt.name).toBe('ok');
    });

    it('prompt args that are not a Zod object', () => {
      const error = definitionError(() =>
        definePrompt({ name: 'summarise', args: { text: z.string() } as any, get: () => 'x' }),
      );
      expect(error).toBeInstanceOf(ToolsConfigurationError);
      expect(error.message).toBe(CORE_MESSAGES.promptArgs('summarise'));
    });

    it('a completer for an undeclared prompt argument or template variable', () => {
      const prompt = definitionError(() =>
        definePrompt({
          name: 'summarise',
          args: z.object({ text: z.string() }),
          complete: { lang: () => [] } as any,
          get: () => 'x',
        }),
      );
      expect(prompt).toBeInstanceOf(ToolsConfigurationError);
      expect(prompt.message).toBe(
        CORE_MESSAGES.completesUndeclared('The prompt "summarise"', 'lang'),
      );
      const template = definitionError(() =>
        defineResourceTemplate({
          uriTemplate: 'kb://articles/{slug}',
          name: 'kb-article',
          variables: z.object({ slug: z.string() }),
          complete: { id: () => [] } as any,
          read: () => 'x',
        }),
      );
      expect(template).toBeInstanceOf(ToolsConfigurationError);
      expect(template.message).toBe(
        CORE_MESSAGES.completesUndeclared('The resource template "kb-article"', 'id'),
      );
    });

    it('a completer that is not a function', () => {
      const error = definitionError(() =>
        definePrompt({
          name: 'summarise',
          args: z.object({ text: z.string() }),
          complete: { text: ['a', 'b'] } as any,
          get: () => 'x',
        }),
      );
      expect(error).toBeInstanceOf(ToolsConfigurationError);
      expect(error.message).toBe(CORE_MESSAGES.completer('The prompt "summarise"', 'text', false));
    });

    it('a missing read or get function', () => {
      const resource = definitionError(() =>
        defineResource({ uri: 'kb://handbook', name: 'kb-handbook' } as any),
      );
      expect(resource).toBeInstanceOf(ToolsConfigurationError);
      expect(resource.message).toBe(CORE_MESSAGES.operationHandler('resource', 'kb-handbook'));
      const template = definitionError(() =>
        defineResourceTemplate({
          uriTemplate: 'kb://articles/{slug}',
          name: 'kb-article',
          variables: z.object({ slug: z.string() }),
          read: 'not a function',
        } as any),
      );
      expect(template).toBeInstanceOf(ToolsConfigurationError);
      expect(template.message).toBe(CORE_MESSAGES.operationHandler('resource', 'kb-article'));
      const prompt = definitionError(() =>
        definePrompt({ name: 'summarise', args: z.object({}) } as any),
      );
      expect(prompt).toBeInstanceOf(ToolsConfigurationError);
      expect(prompt.message).toBe(CORE_MESSAGES.operationHandler('prompt', 'summarise'));
    });

    it('a bad name', () => {
      const cases: Array<[string, string]> = [
        ['kb article', 'must match ^[a-zA-Z0-9_-]{1,64}$'],
        ['kb/article', 'must match ^[a-zA-Z0-9_-]{1,64}$'],
        ['x'.repeat(65), 'is 65 characters (max 64)'],
      ];
      for (const [name, why] of cases) {
        const resource = definitionError(() =>
          defineResource({ uri: 'kb://handbook', name, read: () => 'x' }),
        );
        expect(resource).toBeInstanceOf(ToolsConfigurationError);
        expect(resource.message).toBe(
          CORE_MESSAGES.toolName(name, `runtime resource "${name}"`, why),
        );
        const prompt = definitionError(() =>
          definePrompt({ name, args: z.object({}), get: () => 'x' }),
        );
        expect(prompt).toBeInstanceOf(ToolsConfigurationError);
        expect(prompt.message).toBe(CORE_MESSAGES.toolName(name, `runtime prompt "${name}"`, why));
      }
    });

    it('an empty name', () => {
      const error = definitionError(() =>
        defineResource({ uri: 'kb://handbook', name: '', read: () => 'x' }),
      );
      expect(error).toBeInstanceOf(ToolsConfigurationError);
      expect(error.message).toBe(CORE_MESSAGES.toolName('', 'runtime resource ""', 'is empty'));
    });

    it('a missing name', () => {
      for (const define of [
        () => defineResource({ uri: 'kb://handbook', read: () => 'x' } as any),
        () =>
          defineResourceTemplate({
            uriTemplate: 'kb://articles/{slug}',
            variables: z.object({ slug: z.string() }),
            read: () => 'x',
          } as any),
        () => definePrompt({ args: z.object({}), get: () => 'x' } as any),
      ]) {
        expect(definitionError(define)).toBeInstanceOf(ToolsConfigurationError);
      }
    });

    it('a bad transport, timeout or scope, as for a tool', () => {
      const transport = definitionError(() =>
        defineResource({
          uri: 'kb://handbook',
          name: 'kb-handbook',
          transports: ['HTTP' as any],
          read: () => 'x',
        }),
      );
      expect(transport).toBeInstanceOf(ToolsConfigurationError);
      expect(transport.message).toBe(
        CORE_MESSAGES.unknownTransport('kb-handbook', 'runtime resource "kb-handbook"', 'HTTP'),
      );
      const timeout = definitionError(() =>
        definePrompt({ name: 'p', args: z.object({}), timeoutMs: 0, get: () => 'x' }),
      );
      expect(timeout).toBeInstanceOf(ToolsConfigurationError);
      expect(timeout.message).toBe(CORE_MESSAGES.timeoutMs('p', 'runtime prompt "p"', 0));
      const scope = definitionError(() =>
        defineResource({
          uri: 'kb://handbook',
          name: 'kb-handbook',
          scopes: ['has space'],
          read: () => 'x',
        }),
      );
      expect(scope).toBeInstanceOf(ToolsConfigurationError);
      expect(scope.message).toBe(
        CORE_MESSAGES.scope('kb-handbook', 'runtime resource "kb-handbook"', 'has space'),
      );
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('readResource', () => {
  const read = (resources: unknown[], uri: string, options: ToolInvokerOptions = {}) =>
    createToolInvoker(resources as any, options).readResource(uri, MCP);

  it('text: one content with the URI and the declared mimeType', async () => {
    await expect(read([handbook()], 'kb://handbook')).resolves.toStrictEqual({
      ok: true,
      data: {
        contents: [{ uri: 'kb://handbook', mimeType: 'text/markdown', text: '# Handbook' }],
      },
    });
  });

  it('without a declared mimeType, the contents carry none', async () => {
    const plain = defineResource({ uri: 'kb://plain', name: 'plain', read: () => 'hi' });
    await expect(read([plain], 'kb://plain')).resolves.toStrictEqual({
      ok: true,
      data: { contents: [{ uri: 'kb://plain', text: 'hi' }] },
    });
  });

  it('bytes become a base64 blob (only the bytes of the view, whatever its buffer)', async () => {
    const bytes = defineResource({
      uri: 'kb://logo',
      name: 'logo',
      mimeType: 'image/png',
      read: () => new Uint8Array([0, 1, 2, 255]),
    });
    await expect(read([bytes], 'kb://logo')).resolves.toStrictEqual({
      ok: true,
      data: { contents: [{ uri: 'kb://logo', mimeType: 'image/png', blob: 'AAEC/w==' }] },
    });
    // A view into a larger buffer: its offset and length count, not the buffer's.
    const slice = defineResource({
      uri: 'kb://slice',
      name: 'slice',
      read: () => Buffer.from('xxhelloxx').subarray(2, 7),
    });
    await expect(read([slice], 'kb://slice')).resolves.toStrictEqual({
      ok: true,
      data: { contents: [{ uri: 'kb://slice', blob: Buffer.from('hello').toString('base64') }] },
    });
  });

  it('an explicit { blob: Uint8Array } is encoded, a base64 string kept, its mimeType wins', async () => {
    const blobs = defineResource({
      uri: 'kb://blobs',
      name: 'blobs',
      mimeType: 'application/octet-stream',
      read: () => [{ blob: new Uint8Array([104, 105]), mimeType: 'image/gif' }, { blob: 'aGk=' }],
    });
    await expect(read([blobs], 'kb://blobs')).resolves.toStrictEqual({
      ok: true,
      data: {
        contents: [
          { uri: 'kb://blobs', mimeType: 'image/gif', blob: 'aGk=' },
          { uri: 'kb://blobs', mimeType: 'application/octet-stream', blob: 'aGk=' },
        ],
      },
    });
  });

  it('a list of contents: their own URIs kept, the read URI added to the others', async () => {
    const bundle = defineResource({
      uri: 'kb://bundle',
      name: 'bundle',
      mimeType: 'text/markdown',
      read: () => [
        'first',
        { uri: 'kb://bundle/part-2', text: 'second', mimeType: 'text/plain' },
        { text: 'third', _meta: { order: 3 } },
        new Uint8Array([1]),
      ],
    });
    await expect(read([bundle], 'kb://bundle')).resolves.toStrictEqual({
      ok: true,
      data: {
        contents: [
          { uri: 'kb://bundle', mimeType: 'text/markdown', text: 'first' },
          { uri: 'kb://bundle/part-2', mimeType: 'text/plain', text: 'second' },
          { uri: 'kb://bundle', mimeType: 'text/markdown', text: 'third', _meta: { order: 3 } },
          { uri: 'kb://bundle', mimeType: 'text/markdown', blob: 'AQ==' },
        ],
      },
    });
  });

  it("MCP's own result shape, { contents }, as it is: each content's URI kept or added", async () => {
    const mcpShaped = defineResource({
      uri: 'mcp://docs/readme',
      name: 'readme',
      read: () => ({
        contents: [
          { uri: 'mcp://docs/readme', mimeType: 'text/markdown', text: '# Read me' },
          { text: 'no uri of its own' },
        ],
      }),
    });
    await expect(read([mcpShaped], 'mcp://docs/readme')).resolves.toStrictEqual({
      ok: true,
      data: {
        contents: [
          { uri: 'mcp://docs/readme', mimeType: 'text/markdown', text: '# Read me' },
          { uri: 'mcp://docs/readme', text: 'no uri of its own' },
        ],
      },
    });
  });

  it('an async read of bytes', async () => {
    const later = defineResource({
      uri: 'kb://later',
      name: 'later',
      read: async () => new Uint8Array([7]),
    });
    await expect(read([later], 'kb://later')).resolves.toStrictEqual({
      ok: true,
      data: { contents: [{ uri: 'kb://later', blob: 'Bw==' }] },
    });
  });

  it('a read returning an Observable answers its last value', async () => {
    const streamed = defineResource({
      uri: 'kb://stream',
      name: 'stream',
      read: () => of('draft', 'final'),
    });
    await expect(read([streamed], 'kb://stream')).resolves.toStrictEqual({
      ok: true,
      data: { contents: [{ uri: 'kb://stream', text: 'final' }] },
    });
  });

  it('after close(), reads and gets answer SERVICE_UNAVAILABLE', async () => {
    const invoker = createToolInvoker([handbook(), triage()]);
    await invoker.close({ graceMs: 0 });
    await expect(invoker.readResource('kb://handbook', MCP)).resolves.toMatchObject({
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE', retryable: true },
    });
    await expect(invoker.getPrompt('triage_ticket', { id: 'T-1' }, MCP)).resolves.toMatchObject({
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE' },
    });
  });

  describe('templates', () => {
    it('parses the variables by the schema, hands them as input with the URI', async () => {
      const seen: Array<{ input: unknown; uri: string; call: ToolCallInfo }> = [];
      const template = article(((handlerCall: any) => {
        const { input, uri, call } = handlerCall;
        seen.push({ input, uri, call });
        return `# ${input.slug}`;
      }) as any);
      const result = await read([template], 'kb://articles/reset-password');
      expect(result).toStrictEqual({
        ok: true,
        data: {
          contents: [
            {
              uri: 'kb://articles/reset-password',
              mimeType: 'text/markdown',
              text: '# reset-password',
            },
          ],
        },
      });
      expect(seen).toHaveLength(1);
      expect(seen[0].input).toEqual({ slug: 'reset-password' });
      expect(seen[0].uri).toBe('kb://articles/reset-password');
      expect(seen[0].call).toMatchObject({
        name: 'kb-article',
        kind: 'resource',
        uri: 'kb://articles/reset-password',
        transport: 'MCP',
        source: 'internal',
        depth: 0,
      });
    });

    it('the handler gets what the schema outputs (a transform)', async () => {
      const post = defineResourceTemplate({
        uriTemplate: 'blog://posts/{id}',
        name: 'post',
        variables: z.object({ id: z.string().regex(/^\d+$/).transform(Number) }),
        read: ({ input }) => JSON.stringify({ id: input.id, type: typeof input.id }),
      });
      const result = await read([post], 'blog://posts/42');
      expect(result.ok && result.data.contents[0]).toEqual({
        uri: 'blog://posts/42',
        text: '{"id":42,"type":"number"}',
      });
    });

    it('a URI whose variables do not parse is a VALIDATION_ERROR, and read does not run', async () => {
      const handler = jest.fn(() => 'never');
      const result = await read([article(handler)], 'kb://articles/Reset_Password');
      expect(result).toMatchObject({
        ok: false,
        error: {
          code: 'VALIDATION_ERROR',
          retryable: false,
          details: { target: 'input', issues: [{ path: 'slug', code: 'invalid_format' }] },
        },
      });
      expect(handler).not.toHaveBeenCalled();
    });

    it('the first template that matches serves the URI', async () => {
      const generic = defineResourceTemplate({
        uriTemplate: 'kb://{kind}/{id}',
        name: 'kb-any',
        variables: z.object({ kind: z.string(), id: z.string() }),
        read: ({ input }) => `any ${input.kind} ${input.id}`,
      });
      const text = async (list: unknown[]) => {
        const result = await read(list, 'kb://articles/faq');
        return result.ok ? (result.data.contents[0] as { text: string }).text : result.error.code;
      };
      expect(await text([generic, article()])).toBe('any articles faq');
      expect(await text([article(), generic])).toBe('# faq');
    });

    it('a resource at the exact URI wins over a template declared before it', async () => {
      const index = defineResource({
        uri: 'kb://articles/index',
        name: 'kb-index',
        read: () => 'the index',
      });
      const result = await read([article(), index], 'kb://articles/index');
      expect(result.ok && result.data.contents).toEqual([
        { uri: 'kb://articles/index', text: 'the index' },
      ]);
      const other = await read([article(), index], 'kb://articles/other');
      expect(other.ok && other.data.contents).toEqual([
        { uri: 'kb://articles/other', mimeType: 'text/markdown', text: '# other' },
      ]);
    });

    it('values arrive percent-decoded; the URI stays as it was read', async () => {
      const page = defineResourceTemplate({
        uriTemplate: 'wiki://{title}',
        name: 'wiki',
        variables: z.object({ title: z.string() }),
        read: ({ input }) => input.title,
      });
      const result = await read([page], 'wiki://Hello%20World');
      expect(result.ok && result.data.contents).toEqual([
        { uri: 'wiki://Hello%20World', text: 'Hello World' },
      ]);
    });
  });

  describe('unknown URIs', () => {
    const resources = () => [handbook(), article()];

    it('reject with NOT_FOUND for a caller source', async () => {
      const invoker = createToolInvoker(resources());
      for (const uri of ['kb://nope', 'kb://articles/a/b', 'kb://handbook/']) {
        const error = await rejection(invoker.readResource(uri, { ...MCP, source: 'mcp' }));
        expect(ToolError.is(error)).toBe(true);
        expect(error).toMatchObject({
          code: 'NOT_FOUND',
          message: `No resource at "${uri}".`,
          details: { uri, transport: 'MCP' },
        });
      }
    });

    it('reject with NOT_FOUND for the internal source (the default) too, marked a programming error', async () => {
      const invoker = createToolInvoker(resources());
      for (const options of [MCP, { ...MCP, source: 'internal' }]) {
        const error = await rejection(invoker.readResource('kb://nope', options));
        expect(ToolError.is(error)).toBe(true);
        expect(error).toMatchObject({
          code: 'NOT_FOUND',
          message: 'No resource at "kb://nope".',
          details: { uri: 'kb://nope', transport: 'MCP' },
        });
        expect(isProgrammingError(error)).toBe(true);
      }
    });

    it('run no hook and emit no event', async () => {
      const r = recorder();
      const invoker = createToolInvoker(resources(), r.options);
      await rejection(invoker.readResource('kb://nope', { ...MCP, source: 'mcp' }));
      expect([r.before, r.after, r.errors, r.events]).toEqual([[], [], [], []]);
    });

    it('a call without a valid transport rejects with a TypeError', async () => {
      const invoker = createToolInvoker(resources());
      const error = await rejection(invoker.readResource('kb://handbook', {} as any));
      expect(error).toBeInstanceOf(TypeError);
    });
  });

  describe('a read returning something that is no content', () => {
    it.each([
      ['a number', 42],
      ['an object of another shape', { foo: 1 }],
      ['{ contents } with another key', { contents: [{ text: 'a' }], isError: true }],
      ['{ contents } that is no list', { contents: 'a' }],
      ['{ contents: [] }', { contents: [] }],
      ['{ contents } holding no content', { contents: [{ foo: 1 }] }],
      ['null', null],
      ['an empty list', []],
      ['a blob that is not base64', { blob: 'not base64!' }],
      ['text and blob together', { text: 'a', blob: 'aGk=' }],
    ])('%s is an INTERNAL_SERVER_ERROR, logged', async (_label, body) => {
      const logger = makeLogger();
      const bad = defineResource({ uri: 'kb://bad', name: 'kb-bad', read: () => body as any });
      const result = await read([bad], 'kb://bad', { logger });
      expect(result).toStrictEqual({
        ok: false,
        error: {
          code: 'INTERNAL_SERVER_ERROR',
          message: 'Internal server error',
          retryable: false,
        },
      });
      expect(logger.error).toHaveBeenCalledTimes(1);
      expect(logger.error.mock.calls[0][0]).toContain(
        'Tool "kb-bad" failed unexpectedly: its output does not match its output schema',
      );
    });
  });

  it('a ToolError thrown by read is the answer; a plain Error is an internal error, logged', async () => {
    const logger = makeLogger();
    const missing = defineResourceTemplate({
      uriTemplate: 'kb://articles/{slug}',
      name: 'kb-article',
      variables: z.object({ slug: z.string() }),
      read: ({ input }) => {
        if (input.slug === 'boom') throw new Error('db at 10.0.0.4 failed');
        throw new ToolError('NOT_FOUND', { message: `No article "${input.slug}".` });
      },
    });
    const invoker = createToolInvoker([missing], { logger });
    await expect(invoker.readResource('kb://articles/gone', MCP)).resolves.toStrictEqual({
      ok: false,
      error: { code: 'NOT_FOUND', message: 'No article "gone".', retryable: false },
    });
    expect(logger.error).not.toHaveBeenCalled();
    const boom = await invoker.readResource('kb://articles/boom', MCP);
    expect(boom).toMatchObject({ ok: false, error: { code: 'INTERNAL_SERVER_ERROR' } });
    expect(JSON.stringify(boom)).not.toContain('10.0.0.4');
    expect(logger.error).toHaveBeenCalledTimes(1);
  });

  it('two resources at one URI are refused, naming both', () => {
    const first = defineResource({ uri: 'kb://same', name: 'first', read: () => 'first' });
    const second = defineResource({ uri: 'kb://same', name: 'second', read: () => 'second' });
    expect(() => createToolInvoker([first, second])).toThrow(
      CORE_MESSAGES.sameUri(
        'first',
        'runtime resource "first"',
        'second',
        'runtime resource "second"',
        'kb://same',
      ),
    );
  });
});

// ---------------------------------------------------------------------------------------------

describe('getPrompt', () => {
  const get = (prompt: unknown, args: unknown) =>
    createToolInvoker([prompt as any]).getPrompt((prompt as { name: string }).name, args, MCP);

  it('a string is one user text message, with no description', async () => {
    await expect(get(triage(), { id: 'T-1' })).resolves.toStrictEqual({
      ok: true,
      data: {
        messages: [{ role: 'user', content: { type: 'text', text: 'Triage ticket T-1.' } }],
      },
    });
  });

  it('a list of messages is kept as it is', async () => {
    const chat = definePrompt({
      name: 'chat',
      args: z.object({ topic: z.string() }),
      get: ({ input }) => [
        { role: 'user', content: { type: 'text', text: `Tell me about ${input.topic}` } },
        { role: 'assistant', content: { type: 'text', text: 'Sure.' } },
      ],
    });
    await expect(get(chat, { topic: 'otters' })).resolves.toStrictEqual({
      ok: true,
      data: {
        messages: [
          { role: 'user', content: { type: 'text', text: 'Tell me about otters' } },
          { role: 'assistant', content: { type: 'text', text: 'Sure.' } },
        ],
      },
    });
  });

  it('{ description, messages } is kept, with the description', async () => {
    const described = definePrompt({
      name: 'described',
      args: z.object({}),
      get: async () => ({
        description: 'A described prompt',
        messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }],
      }),
    });
    await expect(get(described, {})).resolves.toStrictEqual({
      ok: true,
      data: {
        description: 'A described prompt',
        messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }],
      },
    });
  });

  it('an embedded resource message passes through whole', async () => {
    const content = {
      type: 'resource',
      resource: { uri: 'kb://handbook', mimeType: 'text/markdown', text: '# Handbook' },
      annotations: { audience: ['assistant'] },
    };
    const embedding = definePrompt({
      name: 'with_handbook',
      args: z.object({}),
      get: () => [
        { role: 'user', content },
        { role: 'user', content: { type: 'text', text: 'Use it.' } },
      ],
    });
    const result = await get(embedding, {});
    expect(result).toStrictEqual({
      ok: true,
      data: {
        messages: [
          { role: 'user', content },
          { role: 'user', content: { type: 'text', text: 'Use it.' } },
        ],
      },
    });
  });

  it('arguments that do not parse are a VALIDATION_ERROR, and get does not run', async () => {
    const handler = jest.fn(() => 'never');
    const prompt = definePrompt({
      name: 'strict',
      args: z.object({ id: z.string().min(2), tone: z.enum(['formal', 'casual']) }),
      get: handler,
    });
    const invoker = createToolInvoker([prompt]);
    const missing = await invoker.getPrompt('strict', { tone: 'formal' }, MCP);
    expect(missing).toMatchObject({
      ok: false,
      error: { code: 'VALIDATION_ERROR', details: { target: 'input', issues: [{ path: 'id' }] } },
    });
    const badEnum = await invoker.getPrompt('strict', { id: 'T-1', tone: 'rude' }, MCP);
    expect(badEnum).toMatchObject({
      ok: false,
      error: { code: 'VALIDATION_ERROR', details: { issues: [{ path: 'tone' }] } },
    });
    expect(handler).not.toHaveBeenCalled();
  });

  it('a get returning something else is an INTERNAL_SERVER_ERROR, logged', async () => {
    const logger = makeLogger();
    const bad = definePrompt({
      name: 'bad',
      args: z.object({}),
      get: () => [{ role: 'system', content: { type: 'text', text: 'x' } }] as any,
    });
    const result = await createToolInvoker([bad], { logger }).getPrompt('bad', {}, MCP);
    expect(result).toMatchObject({ ok: false, error: { code: 'INTERNAL_SERVER_ERROR' } });
    expect(logger.error).toHaveBeenCalledTimes(1);
  });

  describe('an unknown name', () => {
    it('rejects with NOT_FOUND for a caller, suggesting close prompt names', async () => {
      const invoker = createToolInvoker([triage(), makeTool({ service: 'triage', action: 'x' })]);
      const error = await rejection(
        invoker.getPrompt('triage_tickett', {}, { ...MCP, source: 'mcp' }),
      );
      expect(ToolError.is(error)).toBe(true);
      expect(error).toMatchObject({
        code: 'NOT_FOUND',
        message: 'Unknown prompt "triage_tickett". Did you mean "triage_ticket"?',
        details: { name: 'triage_tickett', transport: 'MCP' },
      });
    });

    it('rejects with NOT_FOUND for the internal source too, marked a programming error', async () => {
      const error = await rejection(createToolInvoker([triage()]).getPrompt('nope', {}, MCP));
      expect(ToolError.is(error)).toBe(true);
      expect(error).toMatchObject({ code: 'NOT_FOUND', details: { name: 'nope' } });
      expect((error as Error).message).toMatch(/^Unknown prompt "nope"/);
      expect(isProgrammingError(error)).toBe(true);
    });

    it("a tool's or a resource's name is no prompt, and a prompt's name no tool", async () => {
      const invoker = createToolInvoker([makeTool(), handbook(), triage()]);
      for (const name of ['test_run', 'kb-handbook']) {
        const error = await rejection(invoker.getPrompt(name, {}, { ...MCP, source: 'mcp' }));
        expect(error).toMatchObject({ code: 'NOT_FOUND' });
      }
      const error = await rejection(
        invoker.invoke('triage_ticket', { id: 'T-1' }, { ...MCP, source: 'mcp' }),
      );
      expect(error).toMatchObject({ code: 'NOT_FOUND' });
      expect((error as Error).message).toMatch(/^Unknown tool "triage_ticket"/);
    });

    it('with no prompt at all, the message says there are none', async () => {
      const error = await rejection(
        createToolInvoker([makeTool()]).getPrompt('nope', {}, { ...MCP, source: 'mcp' }),
      );
      expect((error as Error).message).toBe('Unknown prompt "nope": no prompts are available.');
    });
  });

  it('describes its arguments: required or not, with their .describe() text', () => {
    const [descriptor] = createToolInvoker([triage()]).operations('MCP', 'prompt');
    expect(descriptor).toMatchObject({ kind: 'prompt', name: 'triage_ticket' });
    expect(descriptor.kind === 'prompt' && descriptor.arguments).toStrictEqual([
      { name: 'id', description: 'The ticket id', required: true },
      { name: 'tone', required: false },
    ]);
    const defaulted = definePrompt({
      name: 'defaulted',
      args: z.object({ lang: z.string().default('en').describe('Language') }),
      get: () => 'x',
    });
    expect(describeOperation(defaulted)).toMatchObject({
      arguments: [{ name: 'lang', description: 'Language', required: false }],
    });
    const none = definePrompt({ name: 'none', args: z.object({}), get: () => 'x' });
    expect(describeOperation(none)).toMatchObject({ arguments: [] });
    expect(Object.isFrozen((describeOperation(none) as { arguments: unknown }).arguments)).toBe(
      true,
    );
  });
});

// ---------------------------------------------------------------------------------------------

describe('the pipeline', () => {
  it('hooks see call.kind and call.uri; one afterToolCall and one event per read or get', async () => {
    const r = recorder();
    const invoker = createToolInvoker([article(), triage()], r.options);
    const read = await invoker.readResource('kb://articles/faq', { ...MCP, source: 'mcp' });
    const got = await invoker.getPrompt('triage_ticket', { id: 'T-1' }, MCP);
    expect(read.ok && got.ok).toBe(true);

    expect(r.before.map(({ name, args, call }) => ({ name, args, call }))).toEqual([
      {
        name: 'kb-article',
        args: { slug: 'faq' },
        call: expect.objectContaining({
          kind: 'resource',
          uri: 'kb://articles/faq',
          source: 'mcp',
        }),
      },
      {
        name: 'triage_ticket',
        args: { id: 'T-1' },
        call: expect.objectContaining({ kind: 'prompt' }),
      },
    ]);
    expect(r.before[1].call).not.toHaveProperty('uri');
    expect(r.after).toHaveLength(2);
    expect(r.after.map(({ call, result }) => [call.kind, call.uri, result.ok])).toEqual([
      ['resource', 'kb://articles/faq', true],
      ['prompt', undefined, true],
    ]);
    expect(r.errors).toEqual([]);
    expect(r.events).toHaveLength(2);
    expect(r.events[0]).toMatchObject({
      name: 'kb-article',
      kind: 'resource',
      uri: 'kb://articles/faq',
      identity: { serviceName: 'resources', action: 'kb-article', method: 'GET' },
      transport: 'MCP',
      source: 'mcp',
      ok: true,
      depth: 0,
    });
    expect(r.events[0].callId).toBe(r.after[0].call.id);
    expect(r.events[1]).toMatchObject({
      name: 'triage_ticket',
      kind: 'prompt',
      identity: { serviceName: 'prompts' },
      ok: true,
    });
    expect(r.events[1]).not.toHaveProperty('uri');
  });

  it('a failed read is one afterToolCall and one event with its error code', async () => {
    const r = recorder();
    const invoker = createToolInvoker([article()], r.options);
    await invoker.readResource('kb://articles/NOT_A_SLUG', MCP);
    expect(r.after).toHaveLength(1);
    expect(r.events).toHaveLength(1);
    expect(r.events[0]).toMatchObject({
      kind: 'resource',
      uri: 'kb://articles/NOT_A_SLUG',
      ok: false,
      errorCode: 'VALIDATION_ERROR',
    });
  });

  it('serviceName is the operation’s own when it sets one', async () => {
    const r = recorder();
    const faq = defineResource({
      uri: 'kb://faq',
      name: 'faq',
      serviceName: 'knowledge',
      read: () => 'x',
    });
    await createToolInvoker([faq], r.options).readResource('kb://faq', MCP);
    expect(r.events[0].identity).toEqual({
      serviceName: 'knowledge',
      action: 'faq',
      method: 'GET',
    });
  });

  it('afterToolCall sees the result the caller gets', async () => {
    const r = recorder();
    const result = await createToolInvoker([handbook()], r.options).readResource(
      'kb://handbook',
      MCP,
    );
    expect(r.after[0].result).toEqual(result);
  });

  it('currentToolCall() inside a read and a get tells what runs', async () => {
    const seen: Array<ToolCallInfo | undefined> = [];
    const here = defineResource({
      uri: 'kb://here',
      name: 'here',
      read: () => {
        seen.push(currentToolCall());
        return 'x';
      },
    });
    const prompt = definePrompt({
      name: 'here_prompt',
      args: z.object({}),
      get: () => {
        seen.push(currentToolCall());
        return 'x';
      },
    });
    const invoker = createToolInvoker([here, prompt]);
    await invoker.readResource('kb://here', MCP);
    await invoker.getPrompt('here_prompt', {}, MCP);
    expect(seen).toEqual([
      expect.objectContaining({ name: 'here', kind: 'resource', uri: 'kb://here' }),
      expect.objectContaining({ name: 'here_prompt', kind: 'prompt' }),
    ]);
  });

  it('a read made inside a tool call is its child', async () => {
    const r = recorder();
    const holder: { invoker?: ReturnType<typeof createToolInvoker> } = {};
    const reader = makeTool({
      service: 'kb',
      action: 'fetch',
      handler: () => holder.invoker!.readResource('kb://handbook', MCP),
    });
    const invoker = (holder.invoker = createToolInvoker([reader, handbook()], r.options));
    const result = await invoker.invoke('kb_fetch', {}, MCP);
    expect(result).toMatchObject({ ok: true, data: { ok: true } });
    const [inner, outer] = r.events;
    expect(outer).toMatchObject({ kind: 'tool', depth: 0 });
    expect(inner).toMatchObject({
      kind: 'resource',
      uri: 'kb://handbook',
      depth: 1,
      parentId: outer.callId,
    });
  });

  it('a beforeToolCall hook that throws a ToolError refuses the read and the get', async () => {
    const read = jest.fn(() => 'x');
    const get = jest.fn(() => 'x');
    const resource = defineResource({ uri: 'kb://r', name: 'r', read });
    const prompt = definePrompt({ name: 'p', args: z.object({}), get });
    const invoker = createToolInvoker([resource, prompt], {
      hooks: {
        beforeToolCall: ({ call }) => {
          throw new ToolError('RATE_LIMITED', { message: `Slow down on ${call.kind}s.` });
        },
      },
    });
    await expect(invoker.readResource('kb://r', MCP)).resolves.toStrictEqual({
      ok: false,
      error: { code: 'RATE_LIMITED', message: 'Slow down on resources.', retryable: true },
    });
    await expect(invoker.getPrompt('p', {}, MCP)).resolves.toStrictEqual({
      ok: false,
      error: { code: 'RATE_LIMITED', message: 'Slow down on prompts.', retryable: true },
    });
    expect(read).not.toHaveBeenCalled();
    expect(get).not.toHaveBeenCalled();
  });

  it('a beforeToolCall hook may replace the variables of a read', async () => {
    const invoker = createToolInvoker([article()], {
      hooks: { beforeToolCall: () => ({ slug: 'replaced' }) },
    });
    const result = await invoker.readResource('kb://articles/original', MCP);
    expect(result.ok && result.data.contents).toEqual([
      { uri: 'kb://articles/original', mimeType: 'text/markdown', text: '# replaced' },
    ]);
  });

  it("a guard's canActivate false is FORBIDDEN; it sees the descriptor, the variables and the call", async () => {
    const seen: ToolGuardContext[] = [];
    const guard: ToolGuard = {
      canActivate: (context) => {
        seen.push(context);
        return false;
      },
    };
    const handler = jest.fn(() => 'x');
    const invoker = createToolInvoker([article(handler), triage()], { guards: [guard] });
    await expect(invoker.readResource('kb://articles/faq', MCP)).resolves.toStrictEqual({
      ok: false,
      error: {
        code: 'FORBIDDEN',
        message: 'The call to "kb-article" was refused by a guard.',
        retryable: false,
      },
    });
    const got = await invoker.getPrompt('triage_ticket', { id: 'T-1' }, MCP);
    expect(got).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    expect(handler).not.toHaveBeenCalled();
    expect(seen[0]).toMatchObject({
      tool: { kind: 'resource', name: 'kb-article', uriTemplate: 'kb://articles/{slug}' },
      input: { slug: 'faq' },
      call: { kind: 'resource', uri: 'kb://articles/faq' },
    });
    expect(seen[1]).toMatchObject({ tool: { kind: 'prompt' }, input: { id: 'T-1' } });
  });

  it('a guard whose canList answers false hides the operation and refuses its read', async () => {
    const hidden = new Set(['kb-article', 'triage_ticket']);
    const guard: ToolGuard = {
      canActivate: () => true,
      canList: (tool, context) => context.role === 'admin' || !hidden.has(tool.name),
    };
    const invoker = createToolInvoker([handbook(), article(), triage()], { guards: [guard] });
    const names = async (kind: 'resource' | 'prompt', context?: Record<string, unknown>) =>
      (await invoker.visibleOperations('MCP', kind, { context })).map(({ name }) => name);
    expect(await names('resource')).toEqual(['kb-handbook']);
    expect(await names('prompt')).toEqual([]);
    expect(await names('resource', { role: 'admin' })).toEqual(['kb-handbook', 'kb-article']);
    expect(await names('prompt', { role: 'admin' })).toEqual(['triage_ticket']);
    // The static catalog lists everything.
    expect(invoker.operations('MCP', 'resource').map(({ name }) => name)).toEqual([
      'kb-handbook',
      'kb-article',
    ]);
    const refused = await invoker.readResource('kb://articles/faq', MCP);
    expect(refused).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    const prompt = await invoker.getPrompt('triage_ticket', { id: 'T-1' }, MCP);
    expect(prompt).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    const allowed = await invoker.readResource('kb://articles/faq', {
      ...MCP,
      context: { role: 'admin' },
    });
    expect(allowed.ok).toBe(true);
  });

  it('without a listing guard or scopes, visibleOperations is the catalog itself', async () => {
    const invoker = createToolInvoker([handbook(), triage()]);
    expect(await invoker.visibleOperations('MCP', 'resource')).toBe(
      invoker.operations('MCP', 'resource'),
    );
  });

  it('scopes the principal does not hold: hidden, and refused with FORBIDDEN and the scopes', async () => {
    const secret = defineResource({
      uri: 'kb://secret',
      name: 'kb-secret',
      scopes: ['kb:read', 'kb:secret'],
      read: () => 'classified',
    });
    const adminPrompt = definePrompt({
      name: 'admin_prompt',
      args: z.object({}),
      scopes: ['admin'],
      get: () => 'x',
    });
    const invoker = createToolInvoker([handbook(), secret, adminPrompt]);
    const reader = { principal: { clientId: 'c', scopes: ['kb:read'] } };
    const holder = { principal: { clientId: 'c', scopes: ['kb:read', 'kb:secret', 'admin'] } };

    for (const context of [undefined, reader]) {
      const listed = await invoker.visibleOperations('MCP', 'resource', { context });
      expect(listed.map(({ name }) => name)).toEqual(['kb-handbook']);
      expect(await invoker.visibleOperations('MCP', 'prompt', { context })).toEqual([]);
      await expect(invoker.readResource('kb://secret', { ...MCP, context })).resolves.toStrictEqual(
        {
          ok: false,
          error: {
            code: 'FORBIDDEN',
            message: 'The call to "kb-secret" needs the scopes kb:read kb:secret.',
            retryable: false,
            details: { requiredScopes: ['kb:read', 'kb:secret'] },
            hint: 'Sign in again asking for these scopes.',
          },
        },
      );
      const prompt = await invoker.getPrompt('admin_prompt', {}, { ...MCP, context });
      expect(prompt).toMatchObject({
        ok: false,
        error: { code: 'FORBIDDEN', details: { requiredScopes: ['admin'] } },
      });
    }
    const listed = await invoker.visibleOperations('MCP', 'resource', { context: holder });
    expect(listed.map(({ name }) => name)).toEqual(['kb-handbook', 'kb-secret']);
    const read = await invoker.readResource('kb://secret', { ...MCP, context: holder });
    expect(read.ok && read.data.contents).toEqual([{ uri: 'kb://secret', text: 'classified' }]);
    expect((await invoker.getPrompt('admin_prompt', {}, { ...MCP, context: holder })).ok).toBe(
      true,
    );
    expect(invoker.operations('MCP', 'resource')[1]).toMatchObject({
      scopes: ['kb:read', 'kb:secret'],
    });
  });

  describe('with fake timers', () => {
    beforeEach(() => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] });
    });
    afterEach(() => {
      jest.useRealTimers();
    });

    it('timeoutMs: a read that never settles is a REQUEST_TIMEOUT, its signal aborted', async () => {
      const entered = deferred();
      let signal: AbortSignal | undefined;
      const slow = defineResource({
        uri: 'kb://slow',
        name: 'kb-slow',
        timeoutMs: 50,
        read: (call) => {
          signal = call.signal;
          entered.resolve();
          return new Promise<string>(() => {}); // ignores its signal, never settles
        },
      });
      const r = recorder();
      let settled = false;
      const pending = createToolInvoker([slow], r.options)
        .readResource('kb://slow', MCP)
        .finally(() => (settled = true));
      await entered.promise;
      await jest.advanceTimersByTimeAsync(49);
      expect({ settled, aborted: signal?.aborted }).toEqual({ settled: false, aborted: false });
      await jest.advanceTimersByTimeAsync(1);
      expect(settled).toBe(true);
      await expect(pending).resolves.toStrictEqual({
        ok: false,
        error: {
          code: 'REQUEST_TIMEOUT',
          message: 'Tool "kb-slow" did not finish within 50 ms.',
          retryable: true,
        },
      });
      expect(signal?.aborted).toBe(true);
      expect(r.events).toMatchObject([
        { kind: 'resource', uri: 'kb://slow', ok: false, errorCode: 'REQUEST_TIMEOUT' },
      ]);
    });

    it('timeoutMs: a get that never settles is a REQUEST_TIMEOUT', async () => {
      const entered = deferred();
      const slow = definePrompt({
        name: 'slow_prompt',
        args: z.object({}),
        timeoutMs: 20,
        get: () => {
          entered.resolve();
          return new Promise<string>(() => {});
        },
      });
      const pending = createToolInvoker([slow]).getPrompt('slow_prompt', {}, MCP);
      await entered.promise;
      await jest.advanceTimersByTimeAsync(20);
      await expect(pending).resolves.toMatchObject({
        ok: false,
        error: { code: 'REQUEST_TIMEOUT' },
      });
    });
  });

  it("a caller's abort signal is REQUEST_ABORTED, mid-read or before it starts", async () => {
    const entered = deferred();
    let signal: AbortSignal | undefined;
    const read = jest.fn((call: { signal: AbortSignal }) => {
      signal = call.signal;
      entered.resolve();
      return new Promise<string>(() => {});
    });
    const hanging = defineResource({ uri: 'kb://hang', name: 'kb-hang', read });
    const invoker = createToolInvoker([hanging]);
    const controller = new AbortController();
    const pending = invoker.readResource('kb://hang', { ...MCP, signal: controller.signal });
    await entered.promise;
    expect(signal?.aborted).toBe(false);
    controller.abort();
    await expect(pending).resolves.toStrictEqual({
      ok: false,
      error: {
        code: 'REQUEST_ABORTED',
        message: 'The call to "kb-hang" was cancelled.',
        retryable: false,
      },
    });
    expect(signal?.aborted).toBe(true);

    const before = await invoker.readResource('kb://hang', { ...MCP, signal: AbortSignal.abort() });
    expect(before).toMatchObject({ ok: false, error: { code: 'REQUEST_ABORTED' } });
    expect(read).toHaveBeenCalledTimes(1);
  });

  it('a context schema is parsed before the read; a context that does not parse is refused', async () => {
    const contexts: unknown[] = [];
    const tenanted = defineResourceTemplate({
      uriTemplate: 'crm://customers/{id}',
      name: 'crm-customer',
      variables: z.object({ id: z.string() }),
      context: z.object({ tenantId: z.string() }),
      read: ({ input, context }) => {
        contexts.push(context);
        return `${context.tenantId}/${input.id}`;
      },
    });
    const invoker = createToolInvoker([tenanted], {
      resolveContext: () => ({ tenantId: 'ambient', requestId: 'r-1' }),
    });
    const ambient = await invoker.readResource('crm://customers/7', MCP);
    expect(ambient.ok && ambient.data.contents[0]).toEqual({
      uri: 'crm://customers/7',
      text: 'ambient/7',
    });
    const explicit = await invoker.readResource('crm://customers/8', {
      ...MCP,
      context: { tenantId: 'acme' },
    });
    expect(explicit.ok && explicit.data.contents[0]).toEqual({
      uri: 'crm://customers/8',
      text: 'acme/8',
    });
    // Parsed: the schema's output (unknown keys stripped), not the raw context.
    expect(contexts).toEqual([{ tenantId: 'ambient' }, { tenantId: 'acme' }]);

    const bare = createToolInvoker([tenanted]);
    const refused = await bare.readResource('crm://customers/9', MCP);
    expect(refused).toMatchObject({
      ok: false,
      error: {
        code: 'VALIDATION_ERROR',
        details: { target: 'context', issues: [{ path: 'tenantId' }] },
      },
    });
    expect(contexts).toHaveLength(2);
  });

  it('a prompt with a context schema gets the parsed context', async () => {
    const prompt = definePrompt({
      name: 'tenant_prompt',
      args: z.object({}),
      context: z.object({ tenantId: z.string() }),
      get: ({ context }) => `for ${context.tenantId}`,
    });
    const invoker = createToolInvoker([prompt]);
    const ok = await invoker.getPrompt('tenant_prompt', {}, { ...MCP, context: { tenantId: 't' } });
    expect(ok.ok && ok.data.messages[0].content).toEqual({ type: 'text', text: 'for t' });
    const refused = await invoker.getPrompt('tenant_prompt', {}, MCP);
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'VALIDATION_ERROR', details: { target: 'context' } },
    });
  });

  it('a tool, resources and prompts in one invoker: each listed where it belongs', async () => {
    const tool = makeTool({ service: 'kb', action: 'search', method: 'GET' });
    const icons = [{ src: 'https://example.com/kb.png', mimeType: 'image/png' }];
    const handbookWithMeta = defineResource({
      uri: 'kb://handbook',
      name: 'kb-handbook',
      title: 'Support handbook',
      description: 'How we support',
      mimeType: 'text/markdown',
      icons,
      _meta: { ui: { preferredFrameSize: [400, 300] } },
      read: () => 'x',
    });
    const invoker = createToolInvoker([handbookWithMeta, tool, article(), triage()]);
    expect(invoker.names('MCP')).toEqual(['kb_search']);
    expect(invoker.manifest('MCP').map(({ name }) => name)).toEqual(['kb_search']);
    expect(await invoker.visible('MCP')).toEqual(invoker.manifest('MCP'));
    expect(invoker.find('kb-handbook', 'MCP')).toBeUndefined();
    expect(invoker.find('kb_search', 'MCP')?.name).toBe('kb_search');
    expect(catalogInvoker(invoker).catalog.filtersListing('MCP')).toBe(false);
    const error = await rejection(invoker.invoke('kb-handbook', {}, { ...MCP, source: 'mcp' }));
    expect(error).toMatchObject({ code: 'NOT_FOUND' });

    const resources = invoker.operations('MCP', 'resource');
    expect(resources).toHaveLength(2);
    expect(resources[0]).toMatchObject({
      kind: 'resource',
      name: 'kb-handbook',
      uri: 'kb://handbook',
      title: 'Support handbook',
      description: 'How we support',
      mimeType: 'text/markdown',
      icons,
      _meta: { ui: { preferredFrameSize: [400, 300] } },
    });
    expect(resources[1]).toMatchObject({
      kind: 'resource',
      name: 'kb-article',
      uriTemplate: 'kb://articles/{slug}',
      title: 'Article',
      mimeType: 'text/markdown',
    });
    const prompts = invoker.operations('MCP', 'prompt');
    expect(prompts.map(({ name, kind }) => [name, kind])).toEqual([['triage_ticket', 'prompt']]);
    // Frozen, and the same arrays on every call.
    expect(Object.isFrozen(resources)).toBe(true);
    expect(Object.isFrozen(resources[0])).toBe(true);
    expect(invoker.operations('MCP', 'resource')).toBe(resources);
    expect(invoker.operations('MCP', 'prompt')).toBe(prompts);
  });

  it('an operation with no description is described by its title, else its name', () => {
    const titled = defineResource({ uri: 'kb://a', name: 'a', title: 'The A', read: () => 'x' });
    const bare = defineResource({ uri: 'kb://b', name: 'b', read: () => 'x' });
    expect(describeOperation(titled).description).toBe('The A');
    expect(describeOperation(bare).description).toBe('b');
  });
});

// ---------------------------------------------------------------------------------------------

describe('transports', () => {
  it('a resource exposed only on MCP is unknown on CLI and AGENT', async () => {
    const mcpOnly = defineResource({
      uri: 'kb://mcp-only',
      name: 'mcp-only',
      transports: ['MCP'],
      read: () => 'x',
    });
    const invoker = createToolInvoker([mcpOnly]);
    expect((await invoker.readResource('kb://mcp-only', MCP)).ok).toBe(true);
    for (const transport of ['CLI', 'AGENT'] as const) {
      const error = await rejection(
        invoker.readResource('kb://mcp-only', { transport, source: 'cli' }),
      );
      expect(error).toMatchObject({ code: 'NOT_FOUND', details: { transport } });
      expect(invoker.operations(transport, 'resource')).toEqual([]);
    }
    expect(invoker.operations('MCP', 'resource').map(({ name }) => name)).toEqual(['mcp-only']);
  });

  it('operations default to MCP and AGENT; the command line is opt-in', async () => {
    const invoker = createToolInvoker([
      handbook(),
      triage(),
      definePrompt({ name: 'cli_prompt', args: z.object({}), transports: ['CLI'], get: () => 'x' }),
    ]);
    expect(invoker.operations('AGENT', 'resource').map(({ name }) => name)).toEqual([
      'kb-handbook',
    ]);
    expect(invoker.operations('CLI', 'resource')).toEqual([]);
    expect(invoker.operations('CLI', 'prompt').map(({ name }) => name)).toEqual(['cli_prompt']);
    expect(invoker.operations('MCP', 'prompt').map(({ name }) => name)).toEqual(['triage_ticket']);
    const error = await rejection(invoker.getPrompt('cli_prompt', {}, { ...MCP, source: 'mcp' }));
    expect(error).toMatchObject({ code: 'NOT_FOUND' });
    expect((await invoker.getPrompt('cli_prompt', {}, { transport: 'CLI' })).ok).toBe(true);
  });

  it('a template exposed on CLI serves its URIs there only', async () => {
    const cliArticle = defineResourceTemplate({
      uriTemplate: 'kb://articles/{slug}',
      name: 'cli-article',
      transports: ['CLI'],
      variables: z.object({ slug: z.string() }),
      read: () => 'cli',
    });
    const invoker = createToolInvoker([cliArticle, article()]);
    const onCli = await invoker.readResource('kb://articles/x', { transport: 'CLI' });
    expect(onCli.ok && onCli.data.contents[0]).toEqual({ uri: 'kb://articles/x', text: 'cli' });
    const onMcp = await invoker.readResource('kb://articles/x', MCP);
    expect(onMcp.ok && onMcp.data.contents[0]).toMatchObject({ text: '# x' });
  });
});

// ---------------------------------------------------------------------------------------------

describe('complete', () => {
  const SLUGS = ['reset-password', 'refund-policy', 'shipping', 'returns'];
  const completing = (complete: Record<string, Completer>, extra: object = {}) =>
    defineResourceTemplate({
      uriTemplate: 'kb://{lang}/articles/{slug}',
      name: 'kb-article',
      variables: z.object({ lang: z.string(), slug: z.string() }),
      complete,
      read: () => 'x',
      ...extra,
    });

  it('suggests the values the completer gives for what was typed', async () => {
    const template = completing({
      slug: (value) => SLUGS.filter((slug) => slug.startsWith(value)),
    });
    const invoker = createToolInvoker([template]);
    await expect(
      invoker.complete('kb-article', { name: 'slug', value: 're' }, MCP),
    ).resolves.toEqual(['reset-password', 'refund-policy', 'returns']);
    await expect(
      invoker.complete('kb-article', { name: 'slug', value: 'ref' }, MCP),
    ).resolves.toEqual(['refund-policy']);
    await expect(
      invoker.complete('kb-article', { name: 'slug', value: 'zzz' }, MCP),
    ).resolves.toEqual([]);
  });

  it('completes prompt arguments, and awaits an async completer', async () => {
    const prompt = definePrompt({
      name: 'triage_ticket',
      args: z.object({ id: z.string() }),
      complete: { id: async (value) => ['T-1', 'T-2', 'X-9'].filter((id) => id.startsWith(value)) },
      get: () => 'x',
    });
    await expect(
      createToolInvoker([prompt]).complete('triage_ticket', { name: 'id', value: 'T' }, MCP),
    ).resolves.toEqual(['T-1', 'T-2']);
  });

  it('caps the suggestions at 100 and drops what is not a string', async () => {
    const many = Array.from({ length: 250 }, (_, index) => `v${index}`);
    const invoker = createToolInvoker([
      completing({ slug: () => many, lang: () => ['en', 42, null, 'fr'] as any }),
    ]);
    const values = await invoker.complete('kb-article', { name: 'slug', value: '' }, MCP);
    expect(values).toEqual(many.slice(0, 100));
    expect(Object.isFrozen(values)).toBe(true);
    await expect(invoker.complete('kb-article', { name: 'lang', value: '' }, MCP)).resolves.toEqual(
      ['en', 'fr'],
    );
  });

  it('a completer answering no list suggests nothing', async () => {
    const invoker = createToolInvoker([completing({ slug: () => 'reset-password' as any })]);
    await expect(invoker.complete('kb-article', { name: 'slug', value: '' }, MCP)).resolves.toEqual(
      [],
    );
  });

  it('[] for an argument without a completer, an unknown name, or another transport', async () => {
    const completer = jest.fn(() => ['x']);
    const invoker = createToolInvoker([
      completing({ slug: completer }),
      makeTool({ service: 'kb', action: 'search' }),
    ]);
    await expect(
      invoker.complete('kb-article', { name: 'lang', value: 'e' }, MCP),
    ).resolves.toEqual([]);
    await expect(invoker.complete('nope', { name: 'slug', value: '' }, MCP)).resolves.toEqual([]);
    await expect(invoker.complete('kb_search', { name: 'slug', value: '' }, MCP)).resolves.toEqual(
      [],
    );
    await expect(
      invoker.complete('kb-article', { name: 'slug', value: '' }, { transport: 'CLI' }),
    ).resolves.toEqual([]);
    expect(completer).not.toHaveBeenCalled();
  });

  it('[] when a guard hides the operation from the caller (canList), without asking the completer', async () => {
    const completer = jest.fn(() => ['x']);
    const invoker = createToolInvoker([completing({ slug: completer })], {
      guards: [{ canActivate: () => true, canList: (_tool, context) => context.role === 'admin' }],
    });
    await expect(invoker.complete('kb-article', { name: 'slug', value: '' }, MCP)).resolves.toEqual(
      [],
    );
    expect(completer).not.toHaveBeenCalled();
    await expect(
      invoker.complete(
        'kb-article',
        { name: 'slug', value: '' },
        { ...MCP, context: { role: 'admin' } },
      ),
    ).resolves.toEqual(['x']);
  });

  it('[] when the caller lacks the scopes', async () => {
    const completer = jest.fn(() => ['x']);
    const invoker = createToolInvoker([completing({ slug: completer }, { scopes: ['kb:read'] })]);
    await expect(invoker.complete('kb-article', { name: 'slug', value: '' }, MCP)).resolves.toEqual(
      [],
    );
    expect(completer).not.toHaveBeenCalled();
    const context = { principal: { clientId: 'c', scopes: ['kb:read'] } };
    await expect(
      invoker.complete('kb-article', { name: 'slug', value: '' }, { ...MCP, context }),
    ).resolves.toEqual(['x']);
  });

  it('a throwing or rejecting completer is logged and suggests nothing', async () => {
    const logger = makeLogger();
    const failure = new Error('index offline');
    const invoker = createToolInvoker(
      [
        completing({
          slug: () => {
            throw failure;
          },
          lang: () => Promise.reject(failure),
        }),
      ],
      { logger },
    );
    await expect(
      invoker.complete('kb-article', { name: 'slug', value: 'r' }, MCP),
    ).resolves.toEqual([]);
    await expect(
      invoker.complete('kb-article', { name: 'lang', value: 'e' }, MCP),
    ).resolves.toEqual([]);
    expect(logger.error.mock.calls).toEqual([
      ['[toolwright] The completer of "kb-article".slug failed:', failure],
      ['[toolwright] The completer of "kb-article".lang failed:', failure],
    ]);
  });

  it('passes the other arguments and the resolved context to the completer', async () => {
    const calls: Array<[string, unknown]> = [];
    const invoker = createToolInvoker(
      [
        completing({
          slug: (value, options) => {
            calls.push([value, options]);
            return [];
          },
        }),
      ],
      { resolveContext: () => ({ tenantId: 'ambient' }) },
    );
    await invoker.complete(
      'kb-article',
      { name: 'slug', value: 're' },
      { ...MCP, context: { user: 'u-1' }, arguments: { lang: 'en' } },
    );
    await invoker.complete('kb-article', { name: 'slug', value: '' }, MCP);
    expect(calls).toEqual([
      ['re', { context: { tenantId: 'ambient', user: 'u-1' }, arguments: { lang: 'en' } }],
      ['', { context: { tenantId: 'ambient' }, arguments: {} }],
    ]);
  });

  it('an argument named after an Object.prototype member has no completer', async () => {
    const logger = makeLogger();
    const invoker = createToolInvoker([completing({ slug: () => ['x'] })], { logger });
    for (const name of ['__proto__', 'hasOwnProperty', 'constructor', 'toString']) {
      await expect(invoker.complete('kb-article', { name, value: '' }, MCP)).resolves.toEqual([]);
    }
    expect(logger.error).not.toHaveBeenCalled();
  });
});

// ---------------------------------------------------------------------------------------------

describe('registry', () => {
  it('disable drops a resource and a prompt by name', async () => {
    const tool = makeTool({ service: 'kb', action: 'search' });
    const registry = defineToolRegistry({ defaults: [tool, handbook(), article(), triage()] });
    expect(registry.declared).toEqual(['kb_search', 'kb-handbook', 'kb-article', 'triage_ticket']);
    registry.disable('kb-handbook').disable('triage_ticket');
    expect(registry.build().names).toEqual(['kb_search', 'kb-article']);
    const invoker = createToolInvoker(registry);
    expect(invoker.operations('MCP', 'resource').map(({ name }) => name)).toEqual(['kb-article']);
    expect(invoker.operations('MCP', 'prompt')).toEqual([]);
    const error = await rejection(invoker.readResource('kb://handbook', { ...MCP, source: 'mcp' }));
    expect(error).toMatchObject({ code: 'NOT_FOUND' });
    expect((await invoker.readResource('kb://articles/x', MCP)).ok).toBe(true);
  });

  it('replace substitutes a resource and a prompt by name', async () => {
    const newHandbook = defineResource({
      uri: 'kb://handbook/v2',
      name: 'kb-handbook',
      read: () => 'v2',
    });
    const newTriage = definePrompt({
      name: 'triage_ticket',
      args: z.object({ id: z.string() }),
      get: ({ input }) => `New triage of ${input.id}`,
    });
    const invoker = createToolInvoker(
      defineToolRegistry({ defaults: [handbook(), triage()] })
        .replace('kb-handbook', newHandbook)
        .replace('triage_ticket', newTriage),
    );
    const read = await invoker.readResource('kb://handbook/v2', MCP);
    expect(read.ok && read.data.contents).toEqual([{ uri: 'kb://handbook/v2', text: 'v2' }]);
    await expect(rejection(invoker.readResource('kb://handbook', MCP))).resolves.toBeInstanceOf(
      Error,
    );
    const got = await invoker.getPrompt('triage_ticket', { id: 'T-1' }, MCP);
    expect(got.ok && got.data.messages[0].content).toEqual({
      type: 'text',
      text: 'New triage of T-1',
    });
  });

  it('a replacement must carry the same name', () => {
    const builder = defineToolRegistry({ defaults: [handbook()] });
    const other = defineResource({ uri: 'kb://x', name: 'other', read: () => 'x' });
    expect(() => builder.replace('kb-handbook', other)).toThrow(
      new ToolsConfigurationError(CORE_MESSAGES.replacementName('kb-handbook', ['other'])),
    );
  });

  it('a tool and a resource (or a resource and a prompt) with the same name are refused', () => {
    const tool = makeTool({ service: 'kb', action: 'x', name: 'kb-handbook' });
    const refusal = new ToolsConfigurationError(
      CORE_MESSAGES.duplicateName(
        'kb-handbook',
        'runtime tool kb.x',
        'runtime resource "kb-handbook"',
      ),
    );
    expect(() => defineToolRegistry({ defaults: [tool, handbook()] })).toThrow(refusal);
    expect(() => createToolInvoker([tool, handbook()])).toThrow(refusal);
    const prompt = definePrompt({ name: 'kb-handbook', args: z.object({}), get: () => 'x' });
    expect(() => createToolInvoker([handbook(), prompt])).toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.duplicateName(
          'kb-handbook',
          'runtime resource "kb-handbook"',
          'runtime prompt "kb-handbook"',
        ),
      ),
    );
  });
});
