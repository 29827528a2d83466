/**
 * The exports of every entry point, pinned by name: the runtime ones (what `import *` holds) and
 * the type-only ones (what the TypeScript compiler sees). Adding, renaming or removing a public
 * export fails here, so a change to the public surface is always deliberate (update the lists in
 * the same change, and docs/api.md and the README's API section with them).
 */
import 'reflect-metadata';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { INJECTABLE_WATERMARK } from '@nestjs/common/constants.js';
import { Test } from '@nestjs/testing';
import ts from 'typescript';
import { z } from 'zod';
import * as toolwright from '../../lib/index.js';
import * as core from '../../lib/core/index.js';
import * as redis from '../../lib/redis/index.js';
import * as mcp from '../../lib/mcp/index.js';
import * as ai from '../../lib/ai/index.js';
import * as langchain from '../../lib/langchain/index.js';
import * as testing from '../../lib/testing/index.js';
import { ToolInvoker as NestToolInvoker } from '../../lib/nest/tool-invoker.service.js';

/**
 * Each entry point's file, its runtime names (`Object.keys(ns).sort()` must equal `names`) and
 * its type-only names (`types`), every list written sorted (code-unit order).
 */
const SURFACE: Record<string, { file: string; ns: object; names: string[]; types: string[] }> = {
  toolwright: {
    file: 'lib/index.ts',
    ns: toolwright,
    names: [
      'InMemoryInstanceBus',
      'InMemoryTaskStore',
      'McpEndpoint',
      'Prompt',
      'Resource',
      'ResourceTemplate',
      'StderrLogger',
      'TOOL_ERROR_STATUS',
      'Tool',
      'ToolError',
      'ToolErrorFilter',
      'ToolEvents',
      'ToolExecutionContext',
      'ToolFactory',
      'ToolInvoker',
      'ToolRequestContext',
      'ToolRequestMiddleware',
      'ToolsConfigurationError',
      'ToolsHealthIndicator',
      'ToolsHealthModule',
      'ToolsModule',
      'UseToolGuards',
      'createRuntimeToolFactory',
      'createToolInvoker',
      'currentToolCall',
      'definePrompt',
      'defineResource',
      'defineResourceTemplate',
      'defineRuntimeTool',
      'defineToolRegistry',
      'identifyByUserOrPrincipal',
      'isProgrammingError',
      'mapHttpException',
      'presentationOf',
      'runToolsCli',
      'serveAppStdio',
      'withJsonSchema',
    ],
    types: [
      'AfterToolCallEvent',
      'BeforeToolCallEvent',
      'ErrorMapper',
      'IdentifyCaller',
      'InstanceBus',
      'InvokeOptions',
      'JsonSchemaDocument',
      'McpAuthOptions',
      'McpOptions',
      'PromptMessage',
      'ResourceCall',
      'RuntimeOperation',
      'RuntimeTool',
      'RuntimeToolFactory',
      'TaskRecord',
      'TaskStore',
      'ToolAnswer',
      'ToolAsk',
      'ToolCall',
      'ToolCallEvent',
      'ToolCallInfo',
      'ToolContext',
      'ToolContextResolver',
      'ToolDescriptor',
      'ToolErrorEvent',
      'ToolGuard',
      'ToolGuardContext',
      'ToolHooks',
      'ToolInvokerOptions',
      'ToolLogger',
      'ToolPrincipal',
      'ToolQuestion',
      'ToolRegistryBuilder',
      'ToolResult',
      'ToolSchema',
      'ToolTransport',
      'ToolsCliOptions',
      'ToolsHealthIndicatorResult',
      'ToolsHealthOptions',
      'ToolsModuleFactoryOptions',
      'ToolsModuleOptions',
    ],
  },
  'toolwright/core': {
    file: 'lib/core/index.ts',
    ns: core,
    names: [
      'InMemoryInstanceBus',
      'InMemoryTaskStore',
      'TOOL_ERROR_STATUS',
      'ToolError',
      'ToolsConfigurationError',
      'createRuntimeToolFactory',
      'createToolInvoker',
      'currentToolCall',
      'definePrompt',
      'defineResource',
      'defineResourceTemplate',
      'defineRuntimeTool',
      'defineToolRegistry',
      'identifyByUserOrPrincipal',
      'isProgrammingError',
      'presentationOf',
      'withJsonSchema',
    ],
    types: [
      'AfterToolCallEvent',
      'BeforeToolCallEvent',
      'ErrorMapper',
      'IdentifyCaller',
      'InstanceBus',
      'InvokeOptions',
      'JsonSchemaDocument',
      'PromptMessage',
      'ResourceCall',
      'RuntimeOperation',
      'RuntimeTool',
      'RuntimeToolFactory',
      'TaskRecord',
      'TaskStore',
      'ToolAnswer',
      'ToolAsk',
      'ToolCall',
      'ToolCallEvent',
      'ToolCallInfo',
      'ToolContext',
      'ToolDescriptor',
      'ToolErrorEvent',
      'ToolGuard',
      'ToolGuardContext',
      'ToolHooks',
      'ToolInvoker',
      'ToolInvokerOptions',
      'ToolLogger',
      'ToolPrincipal',
      'ToolQuestion',
      'ToolRegistryBuilder',
      'ToolResult',
      'ToolSchema',
      'ToolTransport',
    ],
  },
  'toolwright/mcp': {
    file: 'lib/mcp/index.ts',
    ns: mcp,
    names: ['createMcpHttpHandler', 'serveStdio'],
    types: ['McpAuthOptions', 'McpHttpHandlerOptions', 'McpRequestListener', 'ServeStdioOptions'],
  },
  'toolwright/ai': {
    file: 'lib/ai/index.ts',
    ns: ai,
    names: ['AgentToolError', 'createAgentTools'],
    types: ['AgentToolsOptions'],
  },
  'toolwright/langchain': {
    file: 'lib/langchain/index.ts',
    ns: langchain,
    names: ['createLangChainTools', 'isToolInterrupt'],
    types: ['LangChainToolsOptions', 'ToolAnswer', 'ToolAsk', 'ToolInterrupt', 'ToolQuestion'],
  },
  'toolwright/redis': {
    file: 'lib/redis/index.ts',
    ns: redis,
    names: ['RedisInstanceBus', 'RedisTaskStore'],
    types: ['RedisInstanceBusOptions', 'RedisTaskStoreOptions'],
  },
  'toolwright/testing': {
    file: 'lib/testing/index.ts',
    ns: testing,
    names: ['bindInstances', 'connectMcpClient', 'createInMemoryFetch', 'createTestIssuer'],
    types: [
      'ConnectMcpClientOptions',
      'InMemoryFetch',
      'InMemoryFetchOptions',
      'InMemoryTarget',
      'McpTestProtocolVersion',
      'NestApplicationLike',
      'TestIssuer',
      'TestIssuerOptions',
      'TestPrincipalClaims',
    ],
  },
};

/** The most unique names the entry points may export together (values and types). */
const MAX_UNIQUE_NAMES = 120;

/** What only the Nest layer exports. */
const NEST_ONLY = [
  'McpEndpoint',
  'Prompt',
  'Resource',
  'ResourceTemplate',
  'StderrLogger',
  'Tool',
  'ToolErrorFilter',
  'ToolEvents',
  'ToolExecutionContext',
  'ToolFactory',
  'ToolInvoker',
  'ToolRequestContext',
  'ToolRequestMiddleware',
  'ToolsHealthIndicator',
  'ToolsHealthModule',
  'ToolsModule',
  'UseToolGuards',
  'mapHttpException',
  'runToolsCli',
  'serveAppStdio',
];

/** One export of an entry point, as the compiler sees it. */
interface CompiledExport {
  readonly name: string;
  /** Whether it has a runtime value (a class, a function, a constant), not only a type. */
  readonly value: boolean;
  readonly declarations: readonly ts.Declaration[];
  /** The names of the library's types that a call of it returns (none but for a function). */
  readonly returns: readonly string[];
}

/**
 * Every entry point's exports, from one program over the entry files with tsconfig.json's
 * options. It reads the library's own files only (every name and declaration is there; what a
 * declaration says of a dependency's types does not matter here), which takes a fifth of the time.
 */
function compileSurface(): Record<string, readonly CompiledExport[]> {
  const root = process.cwd();
  const { config } = ts.readConfigFile(join(root, 'tsconfig.json'), (path) =>
    ts.sys.readFile(path),
  );
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root).options;
  const options: ts.CompilerOptions = { ...parsed, noEmit: true, noLib: true, types: [] };
  const host = ts.createCompilerHost(options);
  host.resolveModuleNameLiterals = (literals, containingFile) =>
    literals.map(({ text }) => ({
      resolvedModule: text.startsWith('.')
        ? ts.resolveModuleName(text, containingFile, options, host).resolvedModule
        : undefined,
    }));
  const files = Object.values(SURFACE).map(({ file }) => join(root, file));
  const program = ts.createProgram(files, options, host);
  const checker = program.getTypeChecker();
  const surface: Record<string, readonly CompiledExport[]> = {};
  for (const [entry, { file }] of Object.entries(SURFACE)) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(join(root, file))!)!;
    surface[entry] = checker.getExportsOfModule(module).map((symbol) => {
      const target =
        symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return {
        name: symbol.name,
        value: (target.flags & ts.SymbolFlags.Value) !== 0,
        declarations: target.declarations ?? [],
        returns: returnedTypes(checker, target),
      };
    });
  }
  return surface;
}

/** The library's own named types that calling a function returns (a class is its own name). */
function returnedTypes(checker: ts.TypeChecker, symbol: ts.Symbol): string[] {
  const declaration = symbol.valueDeclaration;
  if (!declaration || !(symbol.flags & ts.SymbolFlags.Function)) return [];
  const type = checker.getTypeOfSymbolAtLocation(symbol, declaration);
  return type.getCallSignatures().flatMap((signature) => {
    const returned = signature.getReturnType();
    const named = returned.aliasSymbol ?? returned.getSymbol();
    const file = named?.declarations?.[0]?.getSourceFile().fileName ?? '';
    const anonymous = !named || named.name.startsWith('__'); // a function or object literal's type
    return !anonymous && file.startsWith(join(process.cwd(), 'lib')) ? [named.name] : [];
  });
}

/**
 * Whether a declaration only renames another type: `type A = B`, `type A<T> = B<T>`, or
 * `interface A extends B {}`. A derived type (`Omit<B, 'x'>`, `Record<string, unknown>`) is not
 * a rename.
 */
function isAliasType(declaration: ts.Declaration): boolean {
  if (ts.isInterfaceDeclaration(declaration)) {
    const heritage = declaration.heritageClauses?.flatMap((clause) => clause.types) ?? [];
    return declaration.members.length === 0 && heritage.length === 1;
  }
  if (!ts.isTypeAliasDeclaration(declaration) || !ts.isTypeReferenceNode(declaration.type)) {
    return false;
  }
  const own = new Set(declaration.typeParameters?.map((parameter) => parameter.name.text));
  return (declaration.type.typeArguments ?? []).every(
    (argument) =>
      ts.isTypeReferenceNode(argument) &&
      ts.isIdentifier(argument.typeName) &&
      own.has(argument.typeName.text),
  );
}

/** Whether a declaration carries a JSDoc comment (a constant's sits on its statement). */
function hasJsDoc(declaration: ts.Declaration): boolean {
  const node = ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration;
  return ts.getJSDocCommentsAndTags(node).length > 0;
}

/** The file that declares it: overloads and merged declarations are one thing, in one file. */
function fileOf(declaration: ts.Declaration): string {
  return declaration.getSourceFile().fileName.replace(`${process.cwd()}/`, '');
}

describe('the public types', () => {
  let compiled: Record<string, readonly CompiledExport[]>;
  beforeAll(() => {
    compiled = compileSurface();
  }, 120_000);

  it.each(Object.keys(SURFACE))('%s exports exactly the listed type-only names', (entry) => {
    const { names, types } = SURFACE[entry];
    expect([...types].sort()).toEqual(types);
    const named = (value: boolean) =>
      compiled[entry].flatMap((e) => (e.value === value ? [e.name] : [])).sort();
    expect(named(false)).toEqual(types);
    // The compiler's runtime names are those `import *` holds.
    expect(named(true)).toEqual(names);
  });

  it(`the entry points export at most ${MAX_UNIQUE_NAMES} unique names together`, () => {
    const unique = new Set(
      Object.values(compiled).flatMap((exports) => exports.map((e) => e.name)),
    );
    expect(unique.size).toBeLessThanOrEqual(MAX_UNIQUE_NAMES);
  });

  it('exports what every exported function returns, so a declaration exporting it can name it', () => {
    const exported = new Set(
      Object.values(compiled).flatMap((exports) => exports.map((e) => e.name)),
    );
    const unnamed = Object.values(compiled)
      .flat()
      .flatMap((e) =>
        e.returns.filter((name) => !exported.has(name)).map((name) => `${e.name}: ${name}`),
      );
    expect([...new Set(unnamed)]).toEqual([]);
  });

  it('exports no alias type (a second name for another type)', () => {
    const aliases = Object.values(compiled)
      .flat()
      .filter((e) => e.declarations.some(isAliasType))
      .map((e) => e.name);
    expect(aliases).toEqual([]);
  });

  it('gives a name one declaration across the entry points (ToolInvoker: the Nest class of the core interface)', () => {
    const declarations = new Map<string, Set<string>>();
    for (const e of Object.values(compiled).flat()) {
      const where = declarations.get(e.name) ?? new Set<string>();
      for (const declaration of e.declarations) where.add(fileOf(declaration));
      declarations.set(e.name, where);
    }
    const twice = [...declarations].filter(([, where]) => where.size > 1).map(([name]) => name);
    expect(twice).toEqual(['ToolInvoker']);
  });

  it('documents every export with a JSDoc comment', () => {
    const undocumented = Object.values(compiled)
      .flat()
      .filter((e) => e.declarations.length === 0 || !e.declarations.some(hasJsDoc))
      .map((e) => e.name);
    expect([...new Set(undocumented)]).toEqual([]);
  });
});

describe('the public surface', () => {
  it.each(Object.keys(SURFACE))('%s exports exactly the listed runtime names', (entry) => {
    const { ns, names } = SURFACE[entry];
    expect([...names].sort()).toEqual(names);
    expect(Object.keys(ns).sort()).toEqual(names);
  });

  it('toolwright is the core surface (the same objects) plus the Nest layer', () => {
    expect(
      Object.keys(toolwright)
        .filter((name) => !NEST_ONLY.includes(name))
        .sort(),
    ).toEqual(SURFACE['toolwright/core'].names);
    for (const name of SURFACE['toolwright/core'].names) {
      expect({ name, same: (toolwright as any)[name] === (core as any)[name] }).toEqual({
        name,
        same: true,
      });
    }
  });

  it.each([
    ['toolwright/core', core],
    ['toolwright/mcp', mcp],
  ])('%s exports nothing of the Nest layer', (_entry, ns) => {
    expect(Object.keys(ns).filter((name) => NEST_ONLY.includes(name))).toEqual([]);
    expect('ToolsModule' in ns).toBe(false);
    expect('ToolInvoker' in ns).toBe(false);
  });

  it("toolwright/mcp's serveStdio serves an invoker; toolwright's serveAppStdio serves a Nest app", () => {
    expect(typeof mcp.serveStdio).toBe('function');
    expect(typeof toolwright.serveAppStdio).toBe('function');
    expect('serveStdio' in toolwright).toBe(false);
  });

  it("ToolInvoker from 'toolwright' is the Nest injectable class", async () => {
    expect(toolwright.ToolInvoker).toBe(NestToolInvoker);
    expect(Reflect.getMetadata(INJECTABLE_WATERMARK, toolwright.ToolInvoker)).toBe(true);

    const ping = core.defineRuntimeTool({
      description: 'Answer pong',
      identity: { serviceName: 'health', action: 'ping', method: 'GET' },
      input: z.object({}),
      handler: () => 'pong',
    });
    const moduleRef = await Test.createTestingModule({
      imports: [toolwright.ToolsModule.forRoot({ registry: [ping], mcp: { mount: false } })],
    }).compile();
    try {
      await moduleRef.init();
      const invoker = moduleRef.get(toolwright.ToolInvoker);
      expect(invoker).toBeInstanceOf(toolwright.ToolInvoker);
      expect(await invoker.invoke('health_ping', {}, { transport: 'AGENT' })).toEqual({
        ok: true,
        data: 'pong',
      });
    } finally {
      await moduleRef.close();
    }
  });
});
