/**
 * The help desk's tools on the command line: `npm run cli -- list`, `npm run cli -- describe
 * helpdesk_get_ticket`, `npm run cli -- call helpdesk_get_ticket --args '{"id":"T-1001"}'`,
 * `npm run cli -- read kb://articles`. The script runs this file from source with tsx (nothing
 * to build first); `npm run -s cli -- …` keeps npm's banner off stdout, for pipes such as
 * `npm run -s cli -- list --json | jq`. There is no HTTP request to take the caller from, so
 * the context comes from HELPDESK_TENANT and HELPDESK_USER (default: acme / alice), or from
 * `--context '<json>'`. Whoever runs the command line has full access: its principal holds
 * every scope the tools require.
 */
import 'reflect-metadata';
import { resolve } from 'node:path';
import { runToolsCli } from 'toolwright';
import { AppModule } from './app/app.module.js';
import { fullAccess } from './auth/caller-context.resolver.js';

const databaseFile = resolve(process.env.HELPDESK_DB ?? 'sample/data/helpdesk.db');
const userId = process.env.HELPDESK_USER ?? 'alice';

process.exitCode = await runToolsCli(AppModule.forRoot({ databaseFile }), process.argv.slice(2), {
  name: 'npm run cli --',
  context: {
    tenantId: process.env.HELPDESK_TENANT ?? 'acme',
    userId,
    principal: fullAccess('cli', userId),
  },
});
