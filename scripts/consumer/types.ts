// Type-checked by scripts/check-package.mjs inside a consumer app that installed the tarball
// (module and moduleResolution nodenext, strict, declaration): every entry point's types resolve
// through the package's `exports`, and what a consumer exports can be named in its declarations.
import type { ToolsModuleOptions } from 'toolwright';
import { createToolInvoker, defineRuntimeTool, type ToolResult } from 'toolwright/core';
import type { McpHttpHandlerOptions } from 'toolwright/mcp';
import type { AgentToolsOptions } from 'toolwright/ai';
import type { LangChainToolsOptions } from 'toolwright/langchain';
import type { RedisInstanceBusOptions } from 'toolwright/redis';
import type { ConnectMcpClientOptions } from 'toolwright/testing';
import { z } from 'zod';

export const echo = defineRuntimeTool({
  description: 'Echo the text',
  identity: { serviceName: 'consumer', action: 'echo', method: 'GET' },
  input: z.object({ text: z.string() }),
  output: z.object({ text: z.string() }),
  handler: ({ input }) => ({ text: input.text }),
});

export const invoker = createToolInvoker([echo]);

export function callEcho(text: string): Promise<ToolResult<{ text: string }>> {
  return invoker.invoke('consumer_echo', { text }, { transport: 'AGENT' });
}

export interface EverySurface {
  nest: ToolsModuleOptions;
  mcp: McpHttpHandlerOptions;
  ai: AgentToolsOptions;
  langchain: LangChainToolsOptions;
  redis: RedisInstanceBusOptions;
  testing: ConnectMcpClientOptions;
}
