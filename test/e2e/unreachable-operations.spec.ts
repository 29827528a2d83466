/**
 * The bootstrap warning of `ToolsModule` about tools, resources and prompts no MCP client can
 * reach: they require scopes, and the application neither signs MCP clients in (`mcp.auth`) nor
 * has a context resolver that could set the principal. Applications that may set a principal,
 * or serve no MCP over HTTP (an application context, `mcp: false`), start without it.
 */
import 'reflect-metadata';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Controller, Injectable, Logger, Module, type ModuleMetadata } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { z } from 'zod';
import {
  McpEndpoint,
  Resource,
  Tool,
  ToolFactory,
  ToolsModule,
  type ToolsModuleOptions,
} from '../../lib/index.js';
import { TestApps } from '../fixtures/apps.js';

@ToolFactory({ serviceName: 'kb', scopes: ['kb:read'] })
@Injectable()
class ScopedKnowledge {
  @Tool({ action: 'search', method: 'GET', description: 'Search', input: z.object({}) })
  search() {
    return { articles: [] };
  }

  @Resource({ uri: 'kb://handbook', name: 'kb_handbook' })
  handbook() {
    return '# Handbook';
  }
}

@ToolFactory({ serviceName: 'health' })
@Injectable()
class Health {
  @Tool({ action: 'ping', method: 'GET', description: 'Ping', input: z.object({}) })
  ping() {
    return { pong: true };
  }
}

@Controller('own/mcp')
class OwnMcpController extends McpEndpoint {}

const apps = new TestApps();
afterEach(async () => {
  await apps.closeAll();
  jest.restoreAllMocks();
});

/** The warnings `ToolsModule` logs about unreachable operations while the app boots. */
function capture(): () => string[] {
  const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  return () =>
    warn.mock.calls
      .map(([message]) => String(message))
      .filter((message) => message.startsWith('No MCP client can ever reach'));
}

function metadata(
  options: Partial<ToolsModuleOptions>,
  extra: ModuleMetadata = {},
): ModuleMetadata {
  return {
    imports: [ToolsModule.forRoot({ registry: [ScopedKnowledge, Health], ...options })],
    providers: [ScopedKnowledge, Health],
    ...extra,
  };
}

describe('operations no MCP client can reach', () => {
  it('are named once at bootstrap, with the fix, when MCP calls can carry no principal', async () => {
    const warnings = capture();
    await apps.init(metadata({}));
    expect(warnings()).toEqual([
      expect.stringMatching(
        /^No MCP client can ever reach kb_search \(tool, scopes kb:read\), kb_handbook \(resource, scopes kb:read\): .*Set mcp\.auth .* from ToolsModule\.forRoot\(\{ context \}\)/,
      ),
    ]);
  });

  it('are named for the application’s own McpEndpoint controller too (mount: false)', async () => {
    const warnings = capture();
    await apps.init(metadata({ mcp: { mount: false } }, { controllers: [OwnMcpController] }));
    expect(warnings()).toHaveLength(1);
  });

  it.each([
    ['a context resolver, which may set the principal', { context: () => ({}) }],
    [
      'mcp.auth',
      { mcp: { auth: { issuers: 'https://issuer.example', resource: 'http://127.0.0.1/mcp' } } },
    ],
    [
      'mcp.auth on one of several endpoints',
      {
        mcp: {
          endpoints: [
            {
              path: '/admin/mcp',
              auth: { issuers: 'https://issuer.example', resource: 'http://127.0.0.1/admin/mcp' },
            },
          ],
        },
      },
    ],
    ['no MCP endpoint (mcp: false)', { mcp: false as const }],
  ])('are not reported with %s', async (_, options) => {
    const warnings = capture();
    await apps.init(metadata(options as Partial<ToolsModuleOptions>));
    expect(warnings()).toEqual([]);
  });

  it('are not reported in an application context (the command line passes its principal)', async () => {
    const warnings = capture();
    @Module(metadata({}))
    class CliModule {}
    const app = await NestFactory.createApplicationContext(CliModule, { logger: false });
    try {
      expect(warnings()).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
