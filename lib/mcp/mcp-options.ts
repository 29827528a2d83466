import { localhostAllowedHostnames, localhostAllowedOrigins } from '@modelcontextprotocol/server';
import type { McpOptions, ResolvedMcpOptions } from './mcp-options.interface.js';

/** The endpoint options with every default filled in; `false` means "do not mount". */
export function resolveMcpOptions(mcp: McpOptions | false | undefined): ResolvedMcpOptions {
  const options = mcp === false ? { mount: false } : (mcp ?? {});
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  if (!(Number.isInteger(maxBodyBytes) && maxBodyBytes > 0)) {
    throw new Error(`mcp.maxBodyBytes must be a positive integer, got ${options.maxBodyBytes}.`);
  }
  const protocol = options.protocol ?? 'dual';
  if (!['dual', 'modern', 'legacy'].includes(protocol)) {
    throw new Error(`mcp.protocol must be 'dual', 'modern' or 'legacy', got "${protocol}".`);
  }
  return Object.freeze({
    mount: options.mount ?? true,
    path: options.path ?? '/mcp',
    serverInfo: options.serverInfo ?? { name: 'toolwright', version: '0.1.0' },
    ...(options.instructions !== undefined && { instructions: options.instructions }),
    allowedHosts: options.allowedHosts ?? localhostAllowedHostnames(),
    allowedOrigins: options.allowedOrigins ?? localhostAllowedOrigins(),
    maxBodyBytes,
    protocol,
    directAnswers: options.directAnswers ?? true,
  });
}
