// Imports the packed package by its own name, as a consumer would, and checks its entry points.
// scripts/check-package.mjs runs it inside a consumer app that installed the tarball.
import assert from 'node:assert/strict';

const root = await import('toolwright');
const core = await import('toolwright/core');
const ai = await import('toolwright/ai');
const langchain = await import('toolwright/langchain');
const mcp = await import('toolwright/mcp');
const redis = await import('toolwright/redis');
const testing = await import('toolwright/testing');

for (const name of [
  'createToolInvoker',
  'defineRuntimeTool',
  'ToolsModule',
  'ToolInvoker',
  'McpEndpoint',
  'runToolsCli',
  'serveAppStdio',
]) {
  assert.equal(typeof root[name], 'function', `toolwright exports ${name}`);
}
for (const name of ['createToolInvoker', 'defineToolRegistry', 'ToolError', 'currentToolCall']) {
  assert.equal(typeof core[name], 'function', `toolwright/core exports ${name}`);
}
assert.equal('ToolsModule' in core, false, 'toolwright/core stays free of Nest');
for (const name of ['createMcpHttpHandler', 'serveStdio']) {
  assert.equal(typeof mcp[name], 'function', `toolwright/mcp exports ${name}`);
}
assert.equal('ToolsModule' in mcp, false, 'toolwright/mcp stays free of Nest');
assert.equal(typeof ai.createAgentTools, 'function', 'toolwright/ai exports createAgentTools');
assert.equal(typeof ai.AgentToolError, 'function', 'toolwright/ai exports AgentToolError');
assert.equal(
  typeof langchain.createLangChainTools,
  'function',
  'toolwright/langchain exports createLangChainTools',
);
assert.equal(
  typeof redis.RedisInstanceBus,
  'function',
  'toolwright/redis exports RedisInstanceBus',
);
assert.equal(typeof redis.RedisTaskStore, 'function', 'toolwright/redis exports RedisTaskStore');
assert.equal(
  typeof core.InMemoryInstanceBus,
  'function',
  'toolwright/core exports InMemoryInstanceBus',
);
for (const name of [
  'connectMcpClient',
  'createInMemoryFetch',
  'createTestIssuer',
  'bindInstances',
]) {
  assert.equal(typeof testing[name], 'function', `toolwright/testing exports ${name}`);
}
console.log(
  'package entry points: ok (toolwright, toolwright/core, toolwright/mcp, toolwright/ai, toolwright/langchain, toolwright/redis, toolwright/testing)',
);
