// Imports the built package by its own name, as a consumer would, and checks its entry points.
import assert from 'node:assert/strict';

const root = await import('toolwright');
const core = await import('toolwright/core');

for (const name of [
  'createToolInvoker',
  'defineRuntimeTool',
  'ToolsModule',
  'ToolInvoker',
  'McpEndpoint',
]) {
  assert.equal(typeof root[name], 'function', `toolwright exports ${name}`);
}
for (const name of ['createToolInvoker', 'defineToolRegistry', 'ToolError', 'currentToolCall']) {
  assert.equal(typeof core[name], 'function', `toolwright/core exports ${name}`);
}
assert.equal('ToolsModule' in core, false, 'toolwright/core stays free of Nest');
console.log('package entry points: ok (toolwright, toolwright/core)');
