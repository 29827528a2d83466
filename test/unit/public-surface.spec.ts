/**
 * The runtime exports of every entry point, pinned by name: adding, renaming or removing a
 * public export fails here, so a change to the public surface is always deliberate (update the
 * list in the same change, and the docs with it).
 */
import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { INJECTABLE_WATERMARK } from '@nestjs/common/constants.js';
import { Test } from '@nestjs/testing';
import { z } from 'zod';
import * as toolwright from '../../lib/index.js';
import * as core from '../../lib/core/index.js';
import * as redis from '../../lib/redis/index.js';
import * as mcp from '../../lib/mcp/index.js';
import * as ai from '../../lib/ai/index.js';
import * as langchain from '../../lib/langchain/index.js';
import { ToolInvoker as NestToolInvoker } from '../../lib/nest/tool-invoker.service.js';

/** `Object.keys(ns).sort()` must equal these lists, written sorted (code-unit order). */
const SURFACE: Record<string, { ns: object; names: string[] }> = {
  toolwright: {
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
    ],
  },
  'toolwright/core': {
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
    ],
  },
  'toolwright/mcp': { ns: mcp, names: ['createMcpHttpHandler', 'serveStdio'] },
  'toolwright/ai': { ns: ai, names: ['AgentToolError', 'createAgentTools'] },
  'toolwright/langchain': { ns: langchain, names: ['createLangChainTools', 'isToolInterrupt'] },
  'toolwright/redis': { ns: redis, names: ['RedisInstanceBus', 'RedisTaskStore'] },
};

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
  'ToolsModule',
  'UseToolGuards',
  'mapHttpException',
  'runToolsCli',
  'serveAppStdio',
];

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
