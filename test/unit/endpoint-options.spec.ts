/**
 * The MCP endpoint's options that cannot work are refused when the endpoint is made, as a
 * `ToolsConfigurationError` whose message names the option and the fix (`MCP_MESSAGES`).
 */
import { describe, expect, it } from '@jest/globals';
import {
  resolveMcpEndpointOptions,
  type McpEndpointOptions,
} from '../../lib/mcp/endpoint-options.js';
import { MCP_MESSAGES } from '../../lib/mcp/mcp.messages.js';

/** What resolving `options` threw. */
function refusal(options: McpEndpointOptions): unknown {
  try {
    resolveMcpEndpointOptions(options);
  } catch (error) {
    return error;
  }
  return undefined;
}

const configurationError = (message: string) =>
  expect.objectContaining({ name: 'ToolsConfigurationError', message });

describe('resolveMcpEndpointOptions', () => {
  it.each([0, -1, 1.5, Number.NaN])('refuses a maxBodyBytes of %p', (maxBodyBytes) => {
    expect(refusal({ maxBodyBytes })).toEqual(
      configurationError(MCP_MESSAGES.maxBodyBytes(maxBodyBytes)),
    );
  });

  it('refuses a protocol it does not know', () => {
    expect(refusal({ protocol: 'both' as never })).toEqual(
      configurationError(MCP_MESSAGES.protocol('both')),
    );
  });

  it('fills in the defaults of options that can work', () => {
    expect(resolveMcpEndpointOptions({})).toMatchObject({
      maxBodyBytes: 4 * 1024 * 1024,
      protocol: 'dual',
      directAnswers: true,
    });
  });
});
