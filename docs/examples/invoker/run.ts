import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { InvokerAppModule } from './app.module.js';
import { ReportsService } from './cancellation.js';
import { NightlyJob } from './nightly-job.js';

// An application context without HTTP: every call here runs outside a request.
const app = await NestFactory.createApplicationContext(InvokerAppModule, { logger: false });

const job = app.get(NightlyJob);
console.log(await job.listFor('globex'));
// { ok: true, data: { invoices: [{ id: 'inv_3', amount: 300, status: 'open' }] } }
console.log(await job.listAs('acme'));
// { ok: true, data: { invoices: [ …inv_1, inv_2 ] } }

console.log(await app.get(ReportsService).exportWithin(120));
// export 1/5 … then { ok: false, error: { code: 'REQUEST_ABORTED', … } }

await app.close();
