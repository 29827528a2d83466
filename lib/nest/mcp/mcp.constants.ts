/** Injection token of the resolved MCP endpoint options. */
export const MCP_OPTIONS = Symbol.for('toolwright.mcpOptions');
