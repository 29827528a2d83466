/**
 * The rule behind the bootstrap warning about operations no MCP client can reach: scopes on an
 * operation exposed on MCP, in an application whose MCP calls over HTTP can never carry a
 * principal (no sign-in, no context resolver). Never reported for an application that may set
 * the principal itself, or that serves no MCP over HTTP.
 */
import { describe, expect, it } from '@jest/globals';
import {
  unreachableOperations,
  unreachableOperationsWarning,
  type McpPrincipalSources,
  type ScopedOperation,
} from '../../lib/nest/unreachable-operations.js';

const scopedTool: ScopedOperation = {
  name: 'kb_search',
  transports: ['MCP', 'AGENT'],
  scopes: ['kb:read'],
};
const scopedResource: ScopedOperation = {
  name: 'kb_article',
  operation: { kind: 'resource' },
  transports: ['MCP'],
  scopes: ['kb:read', 'kb:list'],
};
const scopedPrompt: ScopedOperation = {
  name: 'summarise',
  operation: { kind: 'prompt' },
  transports: ['MCP'],
  scopes: ['kb:read'],
};
const open: ScopedOperation = { name: 'kb_ping', transports: ['MCP'] };
const emptyScopes: ScopedOperation = { name: 'kb_pong', transports: ['MCP'], scopes: [] };
const inProcessOnly: ScopedOperation = {
  name: 'kb_reindex',
  transports: ['AGENT', 'CLI'],
  scopes: ['kb:admin'],
};
const all = [scopedTool, scopedResource, scopedPrompt, open, emptyScopes, inProcessOnly];

const nothing: McpPrincipalSources = {
  servesMcpOverHttp: true,
  signIn: false,
  contextResolver: false,
};

describe('unreachableOperations', () => {
  it('names the scoped operations on MCP when no MCP call can carry a principal', () => {
    expect(unreachableOperations(all, nothing)).toEqual([scopedTool, scopedResource, scopedPrompt]);
  });

  it.each([
    ['mcp.auth signs clients in', { signIn: true }],
    ['a context resolver may set the principal', { contextResolver: true }],
    [
      'no MCP over HTTP (stdio and in-process callers pass their context)',
      { servesMcpOverHttp: false },
    ],
  ] as const)('reports nothing when %s', (_, given) => {
    expect(unreachableOperations(all, { ...nothing, ...given })).toEqual([]);
  });

  it('reports nothing when every scoped operation stays off MCP or no operation has scopes', () => {
    expect(unreachableOperations([open, emptyScopes, inProcessOnly], nothing)).toEqual([]);
  });
});

describe('unreachableOperationsWarning', () => {
  it('names each operation, its kind and its scopes, and the fixes', () => {
    const warning = unreachableOperationsWarning([scopedTool, scopedResource, scopedPrompt]);
    expect(warning).toMatch(
      /^No MCP client can ever reach kb_search \(tool, scopes kb:read\), kb_article \(resource, scopes kb:read kb:list\), summarise \(prompt, scopes kb:read\): they require scopes/,
    );
    expect(warning).toContain('mcp.auth');
    expect(warning).toContain('"principal" from ToolsModule.forRoot({ context })');
  });

  it('says "it" of one operation, and counts those past the tenth', () => {
    expect(unreachableOperationsWarning([scopedTool])).toContain('it requires scopes');
    const many = Array.from({ length: 13 }, (_, i) => ({ ...scopedTool, name: `kb_t${i}` }));
    const warning = unreachableOperationsWarning(many);
    expect(warning).toContain('kb_t9 (tool, scopes kb:read) and 3 more:');
    expect(warning).not.toContain('kb_t10');
  });
});
