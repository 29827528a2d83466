/**
 * The OAuth scopes of the help desk's tools. A caller's principal (`context.principal`) must hold
 * a tool's scopes: MCP clients signed in with OAuth hold what they were granted, API keys and the
 * command line hold them all.
 */
export const TICKETS_READ = 'tickets:read';
export const TICKETS_WRITE = 'tickets:write';

/** Every scope of the help desk, as the MCP endpoint advertises them. */
export const HELPDESK_SCOPES: readonly string[] = Object.freeze([TICKETS_READ, TICKETS_WRITE]);
