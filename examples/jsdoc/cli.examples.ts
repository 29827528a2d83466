/**
 * The `@example` of `runToolsCli`, with its imports: a region at the top level of its own file
 * (see nest.examples.ts for the command line's options).
 */

//#region runToolsCli
// tools.ts, the command line's entry point
import { runToolsCli } from 'toolwright';
import { AppModule } from './app.module.js';

process.exitCode = await runToolsCli(AppModule, process.argv.slice(2), {
  name: 'tools',
  context: { tenantId: process.env.TENANT_ID },
});
// $ tools call billing_get_invoice --args '{"id":"inv_1"}' --json
// $ tools call tickets_close --args '{"id":"T-1"}' --yes
// $ tools read kb://articles/reset-password
// $ tools prompt triage_ticket --args '{"id":"T-1"}'
//#endregion
