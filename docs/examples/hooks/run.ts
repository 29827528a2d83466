import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ToolInvoker } from 'toolwright';
import { AppModule } from './app.module.js';
import { ToolMetrics } from './metrics.service.js';

const app = await NestFactory.createApplicationContext(AppModule);
const tools = app.get(ToolInvoker);
const as = (tenantId: string) => ({ transport: 'AGENT' as const, context: { tenantId } });

console.log(await tools.invoke('payments_refund', { paymentId: 'p1' }, as('acme')));
// { ok: false, error: { code: 'UNAUTHORIZED', message: 'A second person must approve a refund.', … } }
console.log(
  await tools.invoke('payments_refund', { paymentId: 'p1', approvedBy: 'bo' }, as('acme')),
);
// { ok: true, data: { refunded: 'p1' } }
console.log(await tools.invoke('payments_refund', { paymentId: 'p1' }, as('initech')));
// { ok: false, error: { code: 'FORBIDDEN', … } } — hidden from initech, so refused too
console.log(
  (await tools.visible('AGENT', { context: { tenantId: 'initech' } })).map((t) => t.name),
);
// [ 'payments_balance' ]
console.log(app.get(ToolMetrics).failures);
// Map { 'payments_refund:UNAUTHORIZED' => 1, 'payments_refund:FORBIDDEN' => 1 }

await app.close();
