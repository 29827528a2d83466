import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Body,
  Controller,
  Headers,
  Inject,
  Param,
  Post,
  type INestApplication,
} from '@nestjs/common';
import fc from 'fast-check';
import { z } from 'zod';
import {
  createRuntimeToolFactory,
  createToolInvoker,
  defineRuntimeTool,
  ToolInvoker,
  ToolRequestContext,
  ToolsModule,
  type ToolContext,
  type ToolGuard,
} from '../../lib/index.js';
import {
  ADAPTERS,
  ERAS,
  MODERN_META,
  eraHeaders,
  expectNoPollution,
  fcParams,
  isJsonRpcResponse,
  raw,
} from './support.js';
import { TestApps } from '../fixtures/apps.js';

/**
 * `__proto__`, `constructor` and `prototype` keys in arguments, in the explicit and the resolved
 * context, in HTTP headers and in JSON bodies never pollute a built-in prototype, and never give
 * a call a property it was not sent as its own.
 */

// ---------------------------------------------------------------------------------------------
// Hostile JSON text: keys from a small set of dangerous names, duplicates allowed, nested.

const KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'polluted',
  'isAdmin',
  'tenantId',
  'toString',
  'hasOwnProperty',
  'value',
] as const;

const { node: hostileNode } = fc.letrec<{ node: string; object: string; array: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    fc.constantFrom('"yes"', 'true', '1', 'null', '{}', '[]', '"__proto__"'),
    tie('object'),
    tie('array'),
  ),
  object: fc
    .array(fc.tuple(fc.constantFrom(...KEYS), tie('node')), { maxLength: 5 })
    .map((entries) => `{${entries.map(([key, value]) => `"${key}":${value}`).join(',')}}`),
  array: fc.array(tie('node'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
}));

/** A JSON object text whose keys are hostile, always with a `__proto__` that plants values. */
const hostileObject = fc
  .tuple(fc.array(fc.tuple(fc.constantFrom(...KEYS), hostileNode), { maxLength: 5 }), fc.boolean())
  .map(([entries, adminAtTop]) => {
    const all: Array<[string, string]> = [
      ['__proto__', '{"polluted":"yes","isAdmin":true,"tenantId":"evil"}'],
      ['constructor', '{"prototype":{"polluted":"yes","isAdmin":true}}'],
      ...entries,
      ...(adminAtTop ? ([['isAdmin', 'true']] as Array<[string, string]>) : []),
    ];
    return `{${all.map(([key, value]) => `"${key}":${value}`).join(',')}}`;
  });

/** Whether a parsed object has `isAdmin: true` as its own property (the last duplicate wins). */
const ownAdmin = (value: unknown) =>
  typeof value === 'object' &&
  value !== null &&
  Object.hasOwn(value, 'isAdmin') &&
  (value as { isAdmin: unknown }).isAdmin === true;

// ---------------------------------------------------------------------------------------------
// Tools whose schemas keep unknown keys, and a guard that trusts `context.isAdmin`.

const Context = z.looseObject({
  tenantId: z.unknown().optional(),
  isAdmin: z.unknown().optional(),
});

function hostileTools(seen: { contexts: unknown[] }) {
  const factory = createRuntimeToolFactory({ serviceName: 'proto', context: Context });
  const echo = (action: string, input: z.ZodObject<any, any>) =>
    factory.define({
      action,
      method: 'POST',
      description: `Echo with a ${action} schema`,
      input,
      handler: ({ input: parsed, context }) => {
        seen.contexts.push(context);
        return { input: parsed, isAdmin: (context as { isAdmin?: unknown }).isAdmin === true };
      },
    });
  return [
    echo('loose', z.looseObject({})),
    echo('record', z.object({ value: z.record(z.string(), z.unknown()).optional() })),
    echo('any', z.object({ value: z.any() })),
    echo('catchall', z.object({}).catchall(z.unknown())),
    echo(
      'nested',
      z.object({ value: z.looseObject({ inner: z.looseObject({}).optional() }).optional() }),
    ),
    factory.define({
      action: 'admin',
      method: 'GET',
      description: 'Only for callers whose context says isAdmin: true',
      input: z.looseObject({}),
      handler: () => ({ secret: 'admin report' }),
    }),
  ];
}

const ECHOES = ['proto_loose', 'proto_record', 'proto_any', 'proto_catchall', 'proto_nested'];

/** Lets `proto_admin` run only when the parsed context's `isAdmin` is true. */
const adminGuard: ToolGuard = {
  canActivate: ({ tool, context }) =>
    tool.name !== 'proto_admin' || (context as { isAdmin?: unknown }).isAdmin === true,
  canList: (tool, context) => tool.name !== 'proto_admin' || context.isAdmin === true,
};

const silent = { error: () => {}, warn: () => {} };

afterEach(() => expectNoPollution());

// ---------------------------------------------------------------------------------------------

describe('prototype pollution in-process', () => {
  it('hostile arguments, explicit context, resolved context and hook replacements pollute nothing', async () => {
    const seen = { contexts: [] as unknown[] };
    let ambient: ToolContext | undefined;
    const invoker = createToolInvoker(hostileTools(seen), {
      guards: [adminGuard],
      logger: silent,
      resolveContext: () => ambient,
      hooks: {
        // A hook that rebuilds the arguments by spreading them, as applications do.
        beforeToolCall: ({ args }) =>
          typeof args === 'object' && args !== null ? { ...args, hooked: true } : undefined,
      },
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ECHOES, 'proto_admin'),
        hostileObject,
        fc.option(hostileObject, { nil: undefined }),
        fc.option(hostileObject, { nil: undefined }),
        async (name, argsText, explicitText, ambientText) => {
          const args = JSON.parse(argsText);
          const explicit = explicitText === undefined ? undefined : JSON.parse(explicitText);
          ambient = ambientText === undefined ? undefined : JSON.parse(ambientText);
          const result = await invoker.invoke(name, args, {
            transport: 'AGENT',
            ...(explicit !== undefined && { context: explicit }),
          });
          expectNoPollution();
          // The context is the explicit one over the resolved one, own properties only: a
          // planted `__proto__.isAdmin` never makes a caller an admin.
          const admin =
            explicit !== undefined && Object.hasOwn(explicit, 'isAdmin')
              ? ownAdmin(explicit)
              : ownAdmin(ambient);
          if (name === 'proto_admin') {
            expect({ admin, result }).toEqual({
              admin,
              result: admin
                ? { ok: true, data: { secret: 'admin report' } }
                : expect.objectContaining({
                    ok: false,
                    error: expect.objectContaining({ code: 'FORBIDDEN' }),
                  }),
            });
          } else if (!result.ok) {
            // Hostile arguments may not fit the schema: refused as such, nothing else.
            expect(result.error.code).toBe('VALIDATION_ERROR');
          } else {
            expect(result).toMatchObject({ ok: true, data: { isAdmin: admin } });
            const { input } = (result as { data: { input: object } }).data;
            expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
            // A planted value is never read through: only an own `polluted` key comes back.
            if (!Object.hasOwn(args, 'polluted')) {
              expect((input as { polluted?: unknown }).polluted).toBeUndefined();
            }
          }
        },
      ),
      fcParams(300),
    );
    expect(seen.contexts.length).toBeGreaterThan(0);
    // canList uses the same context: the admin tool is listed only for an own isAdmin.
    ambient = JSON.parse('{"__proto__":{"isAdmin":true}}');
    expect((await invoker.visible('AGENT')).map((tool) => tool.name)).not.toContain('proto_admin');
    ambient = { isAdmin: true };
    expect((await invoker.visible('AGENT')).map((tool) => tool.name)).toContain('proto_admin');
  });
});

// ---------------------------------------------------------------------------------------------
// Over HTTP: headers, MCP bodies and a REST route that passes its body and headers on.

@Controller('rest')
class RestController {
  constructor(@Inject(ToolInvoker) private readonly tools: ToolInvoker) {}

  @Post(':name')
  call(@Param('name') name: string, @Body() body: unknown, @Headers() headers: ToolContext) {
    return this.tools.invoke(name, body, { transport: 'AGENT', context: { ...headers } });
  }
}

// A resolver that copies every header into the context, as a careless application might.
let protoHeadersSeen = 0;
const headerResolver = (request: {
  headers: Record<string, unknown>;
  raw?: any;
  rawHeaders?: string[];
}) => {
  const rawHeaders: string[] = request.rawHeaders ?? request.raw?.rawHeaders ?? [];
  if (rawHeaders.includes('__proto__')) protoHeadersSeen++;
  return { ...request.headers };
};

describe.each(ADAPTERS)('prototype pollution over HTTP (%s)', (adapter) => {
  const apps = new TestApps();
  const seen = { contexts: [] as unknown[] };
  let url: string;
  let app: INestApplication;

  beforeAll(async () => {
    ({ app, url } = await apps.listen(
      {
        imports: [
          ToolsModule.forRoot({
            registry: hostileTools(seen),
            context: headerResolver,
            guards: [adminGuard],
          }),
        ],
        controllers: [RestController],
      },
      adapter,
    ));
  });
  afterAll(() => apps.closeAll());

  /** Headers named after prototype keys; `__proto__` defined as an own key, so it is sent. */
  const hostileHeaders = fc
    .record({
      proto: fc.option(fc.constantFrom('polluted=yes', '{"isAdmin":true}'), { nil: undefined }),
      constructor: fc.option(fc.constant('prototype'), { nil: undefined }),
      prototype: fc.option(fc.constant('polluted'), { nil: undefined }),
      isAdmin: fc.option(fc.constant('true'), { nil: undefined }),
      tenant: fc.constantFrom('__proto__', 'constructor', 'acme'),
    })
    .map(({ proto, constructor, prototype, isAdmin, tenant }) => {
      const headers: Record<string, string> = Object.assign(Object.create(null), {
        'x-tenant-id': tenant,
      });
      if (proto !== undefined) {
        Object.defineProperty(headers, '__proto__', { value: proto, enumerable: true });
      }
      if (constructor !== undefined) Reflect.set(headers, 'constructor', constructor);
      if (prototype !== undefined) headers.prototype = prototype;
      if (isAdmin !== undefined) headers['x-is-admin'] = isAdmin;
      return headers;
    });

  it('MCP bodies and headers with hostile keys pollute nothing and grant nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ERAS),
        fc.constantFrom(...ECHOES, 'proto_admin'),
        hostileObject,
        hostileObject,
        hostileHeaders,
        fc.constantFrom('arguments', 'meta', 'message', 'params'),
        async (era, name, argsText, extraText, headers, where) => {
          const meta = era === 'modern' ? JSON.stringify(MODERN_META).slice(0, -1) : '{';
          const metaText =
            where === 'meta'
              ? `${meta}${meta === '{' ? '' : ','}"extra":${extraText}}`
              : meta === '{'
                ? '{}'
                : `${meta}}`;
          const params = `{"name":"${name}","arguments":${argsText},"_meta":${metaText}${where === 'params' ? `,"__proto__":${extraText}` : ''}}`;
          const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${params}${where === 'message' ? `,"__proto__":${extraText}` : ''}}`;
          const answer = await raw(`${url}/mcp`, {
            headers: { ...eraHeaders(era, 'tools/call', name), ...headers },
            body,
          });
          expectNoPollution();
          // Fastify refuses a body with a __proto__ key, and every body here has one (-32700).
          // Express parses it; the SDK (the reference on both eras) then refuses a message with
          // an extra top-level `__proto__` member as not JSON-RPC (-32600), and serves the rest.
          const refusal = adapter === 'fastify' ? -32700 : where === 'message' ? -32600 : undefined;
          expect({ status: answer.status, code: answer.messages?.[0]?.error?.code }).toEqual(
            refusal === undefined
              ? { status: 200, code: undefined }
              : { status: 400, code: refusal },
          );
          expect(answer.messages?.every(isJsonRpcResponse)).toBe(true);
          if (answer.status === 200) {
            const result = answer.messages!.at(-1).result;
            const text = JSON.parse(result.content[0].text);
            if (name === 'proto_admin') expect(text).toMatchObject({ error: 'FORBIDDEN' });
            else if (result.isError) expect(text).toMatchObject({ error: 'VALIDATION_ERROR' });
            else expect(text.isAdmin).toBe(false);
          }
        },
      ),
      fcParams(150),
    );
    // The hostile headers did reach the application.
    expect(protoHeadersSeen).toBeGreaterThan(0);
  });

  it('a REST route passing hostile bodies and headers to the invoker pollutes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ECHOES, 'proto_admin'),
        hostileObject,
        hostileHeaders,
        async (name, body, headers) => {
          const answer = await raw(`${url}/rest/${name}`, {
            headers: { 'content-type': 'application/json', ...headers },
            body,
          });
          expectNoPollution();
          // Fastify refuses the body (it has a __proto__ key); Nest answers a POST with 201.
          expect(answer.status).toBe(adapter === 'fastify' ? 400 : 201);
          if (answer.status < 400) {
            const result = answer.messages![0];
            if (name === 'proto_admin')
              expect(result).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
            else if (!result.ok) expect(result.error.code).toBe('VALIDATION_ERROR');
            else expect(result).toMatchObject({ ok: true, data: { isAdmin: false } });
          }
        },
      ),
      fcParams(100),
    );
  });

  it('a request made current by hand with hostile headers resolves an own-properties context', async () => {
    const invoker = app.get(ToolInvoker);
    const context = app.get(ToolRequestContext);
    const request = { headers: JSON.parse('{"__proto__":{"isAdmin":true},"x-tenant-id":"acme"}') };
    const result = await context.run(request, () =>
      invoker.invoke('proto_admin', {}, { transport: 'AGENT' }),
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    const echoed = await context.run(request, () =>
      invoker.invoke('proto_loose', JSON.parse('{"__proto__":{"polluted":"yes"}}'), {
        transport: 'AGENT',
      }),
    );
    expect(echoed).toMatchObject({ ok: true, data: { isAdmin: false } });
  });
});

// A plain tool with no context schema: the context passes through untouched.
it('a tool without a context schema gets the merged context with own properties only', async () => {
  const plain = defineRuntimeTool({
    description: 'Report the context',
    identity: { serviceName: 'proto', action: 'plain', method: 'GET' },
    input: z.object({}),
    handler: ({ context }) => ({
      isAdmin: (context as { isAdmin?: unknown }).isAdmin ?? null,
      proto: Object.getPrototypeOf(context) === Object.prototype,
    }),
  });
  const invoker = createToolInvoker([plain], {
    resolveContext: () => JSON.parse('{"__proto__":{"isAdmin":true},"tenantId":"a"}'),
  });
  const result = await invoker.invoke(
    'proto_plain',
    {},
    { transport: 'AGENT', context: JSON.parse('{"constructor":{"prototype":{"isAdmin":true}}}') },
  );
  expect(result).toEqual({ ok: true, data: { isAdmin: null, proto: true } });
});
