/** Raw HTTP, apps and leak checks shared by the reliability specs. */
import 'reflect-metadata';
import { expect } from '@jest/globals';
import { Agent, request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import type { INestApplication, ModuleMetadata } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';

export { ADAPTERS, type AdapterName } from '../fixtures/apps.js';

// ---------------------------------------------------------------------------------------------
// Protocol constants.

export const LEGACY_VERSION = '2025-06-18';
export const MODERN_VERSION = '2026-07-28';
export const ACCEPT = 'application/json, text/event-stream';

/** The per-request envelope a 2026-07-28 request carries in `params._meta`. */
export const MODERN_META = Object.freeze({
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'reliability', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

export type Era = 'legacy' | 'modern';
export const ERAS: readonly Era[] = ['legacy', 'modern'];

/** Headers of a JSON POST of an era; `method` and `name` fill the 2026 routing headers. */
export function eraHeaders(era: Era, method = 'tools/call', name?: string): Record<string, string> {
  const base = { 'content-type': 'application/json', accept: ACCEPT };
  if (era === 'legacy') return { ...base, 'mcp-protocol-version': LEGACY_VERSION };
  return {
    ...base,
    'mcp-protocol-version': MODERN_VERSION,
    'mcp-method': method,
    ...(name !== undefined && { 'mcp-name': name }),
  };
}

/** A `tools/call` body of an era; `meta` adds `_meta` keys (a progress token, say). */
export function callBody(
  era: Era,
  name: string,
  args: unknown,
  id: string | number = 1,
  meta: Record<string, unknown> = {},
): string {
  const _meta = era === 'modern' ? { ...MODERN_META, ...meta } : meta;
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, ...(Object.keys(_meta).length > 0 && { _meta }) },
  });
}

/** A `tools/list` body of an era. */
export function listBody(era: Era, id: string | number = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/list',
    params: era === 'modern' ? { _meta: MODERN_META } : {},
  });
}

// ---------------------------------------------------------------------------------------------
// Raw HTTP.

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The JSON-RPC messages of the body (the JSON, or every SSE `data:` line); undefined if unparseable. */
  messages: any[] | undefined;
  ms: number;
}

export function messagesOf(contentType: string | undefined, text: string): any[] | undefined {
  if (text === '') return [];
  try {
    if (contentType?.startsWith('text/event-stream')) {
      return text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .filter((data) => data !== '')
        .map((data) => JSON.parse(data));
    }
    return [JSON.parse(text)];
  } catch {
    return undefined;
  }
}

export interface RawOptions {
  method?: string;
  /** A path with its query; default the URL's. */
  path?: string;
  headers?: OutgoingHttpHeaders;
  /** Written as is; an array is written chunk by chunk (chunked encoding). */
  body?: string | Buffer | Array<string | Buffer>;
  /** Sets Content-Length from the body (not for arrays). Default true. */
  contentLength?: boolean;
  timeoutMs?: number;
  agent?: Agent;
  /** Send the Host header given in `headers` only (none if absent). */
  rawHost?: boolean;
}

/** One request through `node:http`: any Host, any method, raw bytes, chunked bodies, a deadline. */
export function raw(url: string, options: RawOptions = {}): Promise<Answer> {
  const target = new URL(url);
  const timeoutMs = options.timeoutMs ?? 5000;
  const started = performance.now();
  const headers: OutgoingHttpHeaders = { ...options.headers };
  const body = options.body;
  if (body !== undefined && !Array.isArray(body) && options.contentLength !== false) {
    headers['content-length'] = Buffer.byteLength(body);
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: options.path ?? `${target.pathname}${target.search}`,
        method: options.method ?? 'POST',
        headers,
        agent: options.agent,
        setHost: !options.rawHost,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            messages: messagesOf(res.headers['content-type'], text),
            ms: performance.now() - started,
          });
        });
        res.on('error', reject);
      },
    );
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    req.on('error', (error) => {
      clearTimeout(timer);
      // The server may answer (413) and close before the whole body is written.
      if ((error as NodeJS.ErrnoException).code !== 'EPIPE') reject(error);
    });
    if (Array.isArray(body)) for (const chunk of body) req.write(chunk);
    else if (body !== undefined) req.write(body);
    req.end();
  });
}

/** A POST of a JSON-RPC body to an MCP URL. */
export function post(
  url: string,
  body: string | Buffer,
  headers: Record<string, string>,
  options: Omit<RawOptions, 'body' | 'headers'> = {},
): Promise<Answer> {
  return raw(url, { ...options, method: 'POST', headers, body });
}

/** The last JSON-RPC response of an answer (after any notifications). */
export const finalMessage = (answer: Answer) => answer.messages?.at(-1);

/** The tool envelope of a `tools/call` answer: its JSON text, or its structured content. */
export function toolPayload(answer: Answer): { isError: boolean; json: any } {
  const result = finalMessage(answer)?.result;
  if (!result) throw new Error(`no result in ${answer.status} ${answer.text.slice(0, 300)}`);
  const text = result.content?.find((block: { type: string }) => block.type === 'text')?.text;
  return {
    isError: result.isError === true,
    json: text === undefined ? undefined : JSON.parse(text),
  };
}

/** Whether a value is a well-formed JSON-RPC 2.0 response (result or error). */
export function isJsonRpcResponse(message: any): boolean {
  if (typeof message !== 'object' || message === null || message.jsonrpc !== '2.0') return false;
  const idOk =
    message.id === null || typeof message.id === 'string' || typeof message.id === 'number';
  if (!idOk) return false;
  if ('result' in message === 'error' in message) return false;
  if ('error' in message) {
    return Number.isInteger(message.error?.code) && typeof message.error?.message === 'string';
  }
  return typeof message.result === 'object' && message.result !== null;
}

/** Whether a value is a JSON-RPC notification (SSE answers may carry them before the response). */
export const isJsonRpcNotification = (message: any) =>
  typeof message === 'object' &&
  message !== null &&
  message.jsonrpc === '2.0' &&
  typeof message.method === 'string' &&
  !('id' in message);

// ---------------------------------------------------------------------------------------------
// Leaks.

const LEAKS: Array<[string, RegExp]> = [
  ['a stack frame', /\bat [\w.<>$[\] ]+ \((?:file:\/\/|\/|node:)[^()]*:\d+:\d+\)/],
  ['an anonymous stack frame', /\bat (?:file:\/\/|\/|node:)\S+:\d+:\d+/],
  ['a stack property', /"stack"\s*:/],
  ['a repository path', /\/work\//],
  ['node_modules', /node_modules/],
  ['a TypeScript location', /\.ts:\d/],
];

/** The leaks found in a text: stack traces and file paths. `allowed` is what the input itself carried. */
export function leaksIn(text: string, input = ''): string[] {
  return LEAKS.filter(([, pattern]) => pattern.test(text) && !pattern.test(input)).map(
    ([what]) => what,
  );
}

/** JSON of anything: bigints as strings, cycles cut. */
export function safeJson(value: unknown): string {
  const seen = new WeakSet<object>();
  return (
    JSON.stringify(value, (_key, child: unknown) => {
      if (typeof child === 'bigint') return `${child}n`;
      if (typeof child === 'symbol') return child.toString();
      if (typeof child === 'object' && child !== null) {
        if (seen.has(child)) return '[circular]';
        seen.add(child);
      }
      return child;
    }) ?? 'undefined'
  );
}

// ---------------------------------------------------------------------------------------------
// Prototype pollution.

const PROTOTYPES = [Object.prototype, Array.prototype, Function.prototype, String.prototype];
const baseline = PROTOTYPES.map((proto) => Reflect.ownKeys(proto).map(String).sort());

/** Fails if anything was added to a built-in prototype, or `{}` inherits a planted property. */
export function expectNoPollution(): void {
  const probe: any = {};
  expect({
    polluted: probe.polluted,
    isAdmin: probe.isAdmin,
    tenantId: probe.tenantId,
    added: PROTOTYPES.map((proto, i) =>
      Reflect.ownKeys(proto)
        .map(String)
        .filter((key) => !baseline[i].includes(key)),
    ),
    objectProto: Object.getPrototypeOf(probe) === Object.prototype,
  }).toEqual({
    polluted: undefined,
    isAdmin: undefined,
    tenantId: undefined,
    added: PROTOTYPES.map(() => []),
    objectProto: true,
  });
}

// ---------------------------------------------------------------------------------------------
// Apps.

/** Body limit for the specs that POST 4 MiB strings. */
export const BIG_LIMIT = 8 * 1024 * 1024;

export interface ListenOptions {
  /** Raise the framework's JSON body limit (Express `useBodyParser`, Fastify `bodyLimit`). */
  bodyLimit?: number;
}

/**
 * Boots listening Nest apps with `forceCloseConnections` (see test/mcp/support.ts: SDK clients
 * leave keep-alive sockets that would otherwise hold `app.close()` for the keep-alive timeout).
 */
export class ReliabilityApps {
  private readonly open: INestApplication[] = [];

  async listen(
    metadata: ModuleMetadata,
    adapter: 'express' | 'fastify',
    options: ListenOptions = {},
  ): Promise<{ app: INestApplication; url: string; port: number }> {
    const moduleRef = await Test.createTestingModule(metadata).compile();
    const appOptions = { logger: false as const, forceCloseConnections: true };
    let app: INestApplication;
    if (adapter === 'fastify') {
      app = moduleRef.createNestApplication(
        new FastifyAdapter(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}),
        appOptions,
      );
    } else {
      app = moduleRef.createNestApplication<NestExpressApplication>(appOptions);
      if (options.bodyLimit) {
        (app as NestExpressApplication).useBodyParser('json', { limit: options.bodyLimit });
      }
    }
    this.open.push(app);
    await app.listen(0, '127.0.0.1');
    const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    return { app, url, port: Number(new URL(url).port) };
  }

  /** Forgets an app closed by the test itself. */
  forget(app: INestApplication): void {
    const index = this.open.indexOf(app);
    if (index >= 0) this.open.splice(index, 1);
  }

  async closeAll(): Promise<void> {
    const apps = this.open.splice(0);
    await Promise.all(apps.map((app) => app.close().catch(() => undefined)));
  }
}

/** Polls `check` until it holds or `ms` passes; returns whether it held. */
export async function waitFor(check: () => boolean, ms = 3000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

/** fast-check parameters: bounded runs, and a reproducible seed when FC_SEED is set. */
export function fcParams(numRuns: number): { numRuns: number; seed?: number } {
  const seed = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
  return seed === undefined ? { numRuns } : { numRuns, seed };
}
