/**
 * A request to the MCP endpoint with a Host outside `mcp.allowedHosts` is refused (403), and the
 * first refusal of each Host is logged naming the option, up to a bound past which one last
 * line says the rest go unlogged. With `createMcpHttpHandler` and the Nest module (both
 * adapters); node:http sends the Host header as given.
 */
import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Controller, Get } from '@nestjs/common';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool, ToolsModule } from '../../lib/index.js';
import { MAX_LOGGED_HOSTS } from '../../lib/mcp/host-checks.js';
import { MCP_MESSAGES } from '../../lib/mcp/mcp.messages.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';
import { RecordingLogger } from '../fixtures/logs.js';
import { eraHeaders, listBody, listenMcp, post, raw } from '../fixtures/mcp-http.js';

const ping = defineRuntimeTool({
  description: 'Ping',
  identity: { serviceName: 'health', action: 'ping', method: 'GET' },
  input: z.object({}),
  handler: () => ({ pong: true }),
});

const listAs = (url: string, host: string) =>
  post(url, listBody('legacy'), { ...eraHeaders('legacy', 'tools/list'), host });

describe('createMcpHttpHandler', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(() => close?.());

  it('logs the first refusal of each Host with mcp.allowedHosts, within a bound', async () => {
    const warnings: string[] = [];
    const served = await listenMcp(createToolInvoker([ping]), {
      logger: { error: () => undefined, warn: (message) => void warnings.push(message) },
    });
    close = served.close;

    expect((await listAs(served.url, 'api.example.com')).status).toBe(403);
    expect((await listAs(served.url, 'api.example.com')).status).toBe(403);
    expect(warnings).toEqual([MCP_MESSAGES.hostRefused('"api.example.com"')]);
    expect(warnings[0]).toContain('mcp.allowedHosts');
    // A local Host is served and logs nothing.
    expect((await listAs(served.url, 'localhost')).status).toBe(200);
    expect(warnings).toHaveLength(1);

    // Random Hosts: one line each up to the bound, then one last line, then none.
    for (let index = 0; index < MAX_LOGGED_HOSTS + 5; index += 1) {
      expect((await listAs(served.url, `random-${index}.example.com`)).status).toBe(403);
    }
    expect(warnings).toHaveLength(MAX_LOGGED_HOSTS + 1);
    expect(warnings.at(-1)).toBe(MCP_MESSAGES.hostsRefusedQuiet(MAX_LOGGED_HOSTS));
  });
});

@Controller('api')
class PingController {
  @Get('ping')
  ping() {
    return { pong: true };
  }
}

describe.each(ADAPTERS)('the Nest endpoint (%s)', (adapter) => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  it('answers 403 to a non-local Host on /mcp while REST answers 200, and says why once', async () => {
    const logger = new RecordingLogger();
    const { url } = await apps.listen(
      { imports: [ToolsModule.forRoot([ping])], controllers: [PingController] },
      adapter,
      { logger },
    );
    const rest = await raw(`${url}/api/ping`, {
      method: 'GET',
      headers: { host: 'tools.example.com' },
    });
    expect(rest.status).toBe(200);
    expect((await listAs(`${url}/mcp`, 'tools.example.com')).status).toBe(403);
    expect((await listAs(`${url}/mcp`, 'tools.example.com')).status).toBe(403);
    const lines = logger.about('mcp.allowedHosts');
    expect(lines).toHaveLength(1);
    expect(lines[0].level).toBe('warn');
    expect(String(lines[0].args[0])).toBe(MCP_MESSAGES.hostRefused('"tools.example.com"'));
  });
});
