/**
 * A command line for the application's CLI tools:
 *
 *   node dist/cli.js list
 *   node dist/cli.js describe support_get_order
 *   node dist/cli.js call support_get_order --args '{"id":"o-1"}' --context '{"tenantId":"acme"}'
 *   echo '{"id":"o-1"}' | node dist/cli.js call support_get_order --json
 *
 * Exit codes: 0 success, 1 tool failure (the envelope on stdout), 2 usage error, unknown tool,
 * or a question (`confirm`, `elicit`) with no terminal to ask it on.
 */
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { runToolsCli, ToolsModule } from 'toolwright';
import { getOrder } from './support.tools.js';

@Module({ imports: [ToolsModule.forRoot({ registry: [getOrder], mcp: false })] })
class CliModule {}

process.exitCode = await runToolsCli(CliModule, process.argv.slice(2), {
  name: 'support-cli',
  context: { tenantId: process.env.TENANT_ID ?? 'acme' },
});
