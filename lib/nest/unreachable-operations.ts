import type { ToolTransport } from '../core/types.js';

/** What {@link unreachableOperations} reads of a tool, resource or prompt. */
export interface ScopedOperation {
  readonly name: string;
  /** Absent for a tool. */
  readonly operation?: { readonly kind: 'resource' | 'prompt' };
  readonly transports: readonly ToolTransport[];
  readonly scopes?: readonly string[];
}

/** Where the principal of a call made over the application's MCP endpoint could come from. */
export interface McpPrincipalSources {
  /**
   * Whether the application serves MCP over HTTP: it listens (not an application context such as
   * the command line's) and some controller is an `McpEndpoint` (the mounted one or its own).
   */
  readonly servesMcpOverHttp: boolean;
  /**
   * Whether `mcp.auth` signs MCP clients in, on some endpoint: it then puts their verified
   * principal in the context.
   */
  readonly signIn: boolean;
  /** Whether a `context` resolver is set: it may put a `principal` in the context itself. */
  readonly contextResolver: boolean;
}

/**
 * The operations no MCP client can ever reach: they require scopes and are exposed on `MCP`,
 * while nothing can give an MCP caller a principal to hold them. Over HTTP a call's context
 * comes only from the context resolver, with the signed-in principal laid over it, so an
 * application with neither has no principal on any MCP call: such operations are left out of
 * every list and every call is refused. With a resolver (which may set `principal`) or sign-in,
 * or without an HTTP MCP endpoint (stdio and in-process callers pass their context, principal
 * included), nothing is reported: the rule never flags an application that sets the principal.
 */
export function unreachableOperations<O extends ScopedOperation>(
  operations: readonly O[],
  sources: McpPrincipalSources,
): O[] {
  if (!sources.servesMcpOverHttp || sources.signIn || sources.contextResolver) return [];
  return operations.filter(
    (operation) => operation.transports.includes('MCP') && (operation.scopes?.length ?? 0) > 0,
  );
}

/** The most operations the warning names; the rest are counted. */
const NAMED = 10;

/** The bootstrap warning about {@link unreachableOperations}, naming the fixes. */
export function unreachableOperationsWarning(operations: readonly ScopedOperation[]): string {
  const named = operations
    .slice(0, NAMED)
    .map(
      (operation) =>
        `${operation.name} (${operation.operation?.kind ?? 'tool'}, scopes ${operation.scopes!.join(' ')})`,
    );
  const more = operations.length - named.length;
  const list = more > 0 ? `${named.join(', ')} and ${more} more` : named.join(', ');
  const one = operations.length === 1;
  return (
    `No MCP client can ever reach ${list}: ${one ? 'it requires' : 'they require'} scopes, ` +
    `and no MCP call carries a principal to hold them (no mcp.auth and no context resolver), ` +
    `so MCP lists leave ${one ? 'it' : 'them'} out and calls are refused with FORBIDDEN. ` +
    `Set mcp.auth to sign MCP clients in with OAuth, or return a principal ` +
    `({ clientId, scopes }) under "principal" from ToolsModule.forRoot({ context }); ` +
    `or remove the scopes (or 'MCP' from transports) if no MCP client should need them.`
  );
}
