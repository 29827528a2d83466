/**
 * The help desk sample: `npm run sample` builds it and starts it on PORT (default 3000).
 */
import 'reflect-metadata';
// Starts OpenTelemetry before the app is created, when OTEL_EXPORTER_OTLP_ENDPOINT or
// HELPDESK_TRACE=1 is set (sample/telemetry.ts).
import './telemetry.js';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { resolve } from 'node:path';
import { AppModule } from './app/app.module.js';
import { SEEDED_USERS } from './database/seed.js';

const port = Number(process.env.PORT ?? 3000);
/** What seals questions' state when HELPDESK_STATE_KEY is not set: for development only. */
const DEVELOPMENT_STATE_KEY = 'helpdesk sample development key (not a secret)';
const databaseFile = resolve(process.env.HELPDESK_DB ?? 'sample/data/helpdesk.db');

const app = await NestFactory.create<NestExpressApplication>(
  AppModule.forRoot({
    databaseFile,
    logCalls: true,
    // The key that seals a question's state between rounds, the same on every instance:
    // HELPDESK_STATE_KEY in production; the default is a development key, not a secret.
    requestStateKey: process.env.HELPDESK_STATE_KEY ?? DEVELOPMENT_STATE_KEY,
    // Set by `npm run sample:cluster`: the instances share tasks and messages through it.
    redisUrl: process.env.REDIS_URL,
  }),
);
app.enableShutdownHooks();
await app.listen(port, '127.0.0.1');

const [alice, , gina] = SEEDED_USERS;
const base = `http://127.0.0.1:${port}`;
console.log(`
Help desk sample is running.

  MCP endpoint   ${base}/mcp
  Admin MCP      ${base}/admin/mcp    (administrators: ${alice.id})
  Credential     Authorization: Bearer ${alice.apiKey}    (tenant ${alice.tenantId}, user ${alice.id})
  Other tenant   Authorization: Bearer ${gina.apiKey}   (tenant ${gina.tenantId}, user ${gina.id})
  REST           curl -H 'Authorization: Bearer ${alice.apiKey}' ${base}/api/tickets
  Database       ${databaseFile}
`);
