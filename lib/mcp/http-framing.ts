import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable, Transform } from 'node:stream';
import type { CallerSignal } from '../core/handler-wait.js';
import { JsonDepthGauge, jsonTextTooDeep, MAX_JSON_DEPTH } from '../core/json-depth.js';

/** A Node request as Express or Fastify hands it to a controller. */
export interface HttpRequestLike {
  method?: string;
  url?: string;
  originalUrl?: string;
  headers: IncomingMessage['headers'];
  body?: unknown;
  raw?: IncomingMessage;
  socket?: IncomingMessage['socket'];
}

/** A Node response, an Express response, or a Fastify reply. */
export type HttpResponseLike = ServerResponse | { raw: ServerResponse; hijack(): unknown };

/** The Node `ServerResponse` behind an Express response or a Fastify reply (which is hijacked). */
export function nodeResponse(response: HttpResponseLike): ServerResponse {
  if ('hijack' in response && typeof response.hijack === 'function') {
    response.hijack();
    return response.raw;
  }
  return response as ServerResponse;
}

/**
 * A controller aborted when the client goes away before its answer is written: made only for
 * what can be cancelled (a tool call, a request handed to the SDK), not for every request.
 */
export function abortedOnDisconnect(target: ServerResponse): AbortController {
  const controller = new AbortController();
  // The client may be gone already (while the request was being signed in): its 'close' is past.
  if (target.destroyed && !target.writableFinished) controller.abort();
  else {
    target.on('close', () => {
      if (!target.writableFinished) controller.abort();
    });
  }
  return controller;
}

/**
 * What cancels a call the endpoint answers itself: the client going away before its answer is
 * written, or {@link abort} (a 2025-era cancellation). It does the work of
 * {@link abortedOnDisconnect} for a fraction of the cost: an `AbortSignal` costs more to make
 * than a small call costs to run, and this listens to the response only once something listens
 * to it, which a call answered without waiting never does.
 */
export class DisconnectSignal implements CallerSignal {
  #aborted = false;
  #listeners?: Array<() => void>;

  constructor(private readonly target: ServerResponse) {}

  /** Whether the call is cancelled: aborted, or its client gone before the answer was written. */
  get aborted(): boolean {
    const { target } = this;
    return this.#aborted || (target.destroyed && !target.writableFinished);
  }

  /** Cancels the call: the listeners run, once. */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const listeners = this.#listeners ?? [];
    this.#listeners = [];
    for (const listener of listeners) listener();
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.#aborted) return;
    if (!this.#listeners) {
      this.#listeners = [];
      this.target.once('close', () => {
        if (!this.target.writableFinished) this.abort();
      });
    }
    this.#listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.#listeners?.indexOf(listener) ?? -1;
    if (at >= 0) this.#listeners!.splice(at, 1);
  }
}

/** Node's headers as web `Headers`. */
export function webHeaders(headers: IncomingMessage['headers']): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) result.append(name, item);
    else result.set(name, value);
  }
  return result;
}

/**
 * Whether a string body is JSON text (a raw body) rather than a JSON string literal a parser
 * already decoded (Fastify parses `"tools/list"` to `tools/list`). Text nested too deep to parse
 * counts as a raw body, which is refused unparsed.
 */
export function isJsonText(body: unknown): boolean {
  if (typeof body !== 'string') return false;
  if (jsonTextTooDeep(body)) return true;
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}

/** The JSON-RPC error message of a body nested deeper than `MAX_JSON_DEPTH`. */
export const BODY_TOO_DEEP_MESSAGE = `Parse error: the body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`;

/**
 * What reading a body nested deeper than `MAX_JSON_DEPTH` fails with, before anything parses
 * it. Its `type` and `status` are what Express's body parser and Fastify read of an error.
 */
export class BodyTooDeepError extends Error {
  static readonly type = 'toolwright.body.too.deep';
  readonly type = BodyTooDeepError.type;
  readonly status = 400;
  readonly statusCode = 400;

  constructor() {
    super(`The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`);
  }
}

/**
 * A body stream that fails with a {@link BodyTooDeepError} as soon as its text nests deeper than
 * `MAX_JSON_DEPTH`, before the rest is read; the bytes pass unchanged.
 */
export function depthChecked(payload: Readable & { receivedEncodedLength?: number }): Readable {
  const gauge = new JsonDepthGauge();
  const checked = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (gauge.write(chunk)) done(null, chunk);
      else done(new BodyTooDeepError());
    },
  });
  // A decompressing stream before this one says how many bytes came over the wire (Fastify
  // compares them with Content-Length).
  if (payload.receivedEncodedLength !== undefined) {
    Object.defineProperty(checked, 'receivedEncodedLength', {
      get: () => payload.receivedEncodedLength,
    });
  }
  payload.on('error', (error) => checked.destroy(error));
  // Whoever reads the body hears the error; for a request refused before its body is read, an
  // error no one listens to would be an uncaught exception.
  checked.on('error', () => undefined);
  return payload.pipe(checked);
}

/**
 * Reads a body's depth as its reader receives it, without a stream in between: once the text
 * nests deeper than `MAX_JSON_DEPTH`, the reader hears a {@link BodyTooDeepError} on the body
 * stream at once, before the end, so it never parses the text (its own `data` listener still
 * gets that chunk, as the listeners of one chunk are called from a copy of their list). The
 * reader must attach its `data` and `error` listeners in the same turn as this one (a
 * framework's body reader right after a hook returns).
 */
export function refuseWhenTooDeep(payload: Readable): void {
  const gauge = new JsonDepthGauge();
  const read = (chunk: Buffer | string) => {
    if (gauge.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) return;
    payload.removeListener('data', read);
    // Now, not later: a body read whole from the buffer has its end queued before this chunk is
    // handed out. A reader that already stopped (its own limit) has nothing more to hear.
    if (payload.listenerCount('error') > 0) payload.emit('error', new BodyTooDeepError());
  };
  payload.on('data', read);
}

/**
 * The URL of a request. A Host header that cannot be part of a URL (`a b`, `[`, `x:99999`,
 * `user@host`) must not make building the request throw: the URL then uses `localhost`, and the
 * Host check, which reads the header itself, decides about the request.
 */
export function requestUrl(host: string | null, path: string): string {
  for (const candidate of [`http://${host ?? 'localhost'}${path}`, `http://localhost${path}`]) {
    try {
      // A web Request refuses a URL with credentials (a Host header such as `user@localhost`).
      const url = new URL(candidate);
      if (url.username === '' && url.password === '') return candidate;
    } catch {
      // Not a URL: try the next candidate.
    }
  }
  return 'http://localhost/';
}

/**
 * The size in UTF-8 bytes of a parsed JSON value written back as compact JSON, or `Infinity` as
 * soon as it exceeds `limit`. Iterative: a body nested 10,000 levels deep (which the parsers
 * accept) would overflow the stack of `JSON.stringify`.
 */
export function jsonByteLength(value: unknown, limit: number): number {
  let size = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (Array.isArray(item)) {
      // Brackets and commas; an array hole or undefined is written as null.
      size += 2 + Math.max(0, item.length - 1);
      for (const element of item) pending.push(element === undefined ? null : element);
    } else if (typeof item === 'object' && item !== null) {
      const entries = Object.entries(item).filter(([, v]) => v !== undefined);
      size += 2 + Math.max(0, entries.length - 1);
      for (const [key, child] of entries) {
        size += Buffer.byteLength(JSON.stringify(key)) + 1;
        pending.push(child);
      }
    } else {
      size += Buffer.byteLength(JSON.stringify(item) ?? 'null');
    }
    if (size > limit) return Infinity;
  }
  return size;
}

/** The JSON body a Nest body parser already parsed, if that is what the request carries. */
export function parsedJsonBody(request: HttpRequestLike): unknown {
  const { body, method = 'POST' } = request;
  const type = request.headers['content-type'];
  const isJson = /^application\/(.+\+)?json\b/i.test(typeof type === 'string' ? type : '');
  return method !== 'GET' &&
    method !== 'HEAD' &&
    isJson &&
    body !== undefined &&
    !Buffer.isBuffer(body) &&
    !isJsonText(body)
    ? body
    : undefined;
}

/**
 * The web `Request` for a Node request whose body a Nest body parser may already have read.
 * A parsed JSON body is returned as `parsedBody`; an unread body is streamed; a body read as
 * JSON text or bytes is passed as is. The request's signal fires when the client goes away.
 */
export function toWebRequest(
  request: HttpRequestLike,
  signal: AbortSignal,
): { request: Request; parsedBody?: unknown } {
  const raw = request.raw ?? (request as IncomingMessage);
  const headers = webHeaders(request.headers);
  const url = requestUrl(headers.get('host'), request.originalUrl ?? request.url ?? '/');
  const method = request.method ?? 'POST';
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal };
  const { body } = request;
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const parsedBody = parsedJsonBody(request);
  if (parsedBody !== undefined) return { request: new Request(url, init), parsedBody };
  if (hasBody) {
    // Whoever reads the body gets it only as deep as `MAX_JSON_DEPTH`; a deeper one cannot be
    // read (the SDK answers a parse error). A stream in between rather than
    // `refuseWhenTooDeep`: a web stream's reader throws on a chunk handed to it after its error.
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      // A Buffer is a Uint8Array; typed the way the DOM's `BodyInit` accepts one.
      init.body = jsonTextTooDeep(body) ? unreadable() : (body as string | Uint8Array<ArrayBuffer>);
    } else if (!raw.readableEnded && raw.readable) {
      init.body = Readable.toWeb(depthChecked(raw)) as ReadableStream;
      init.duplex = 'half';
    }
  }
  return { request: new Request(url, init) };
}

/** A body stream that fails at once, as a body too deep to read does. */
function unreadable(): ReadableStream {
  return new ReadableStream({ start: (controller) => controller.error(new BodyTooDeepError()) });
}

/** Writes a web `Response` (JSON or an SSE stream) to a Node response. */
export async function writeWebResponse(target: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  target.writeHead(response.status, headers);
  if (!response.body) {
    target.end();
    return;
  }
  if (headers['content-type']?.startsWith('text/event-stream')) target.flushHeaders();
  const body = Readable.fromWeb(response.body as never);
  // Nothing can be written to a response already closed, and its 'close' will not come again.
  if (target.destroyed) {
    body.destroy();
    return;
  }
  await new Promise<void>((resolve) => {
    body.on('error', () => target.destroy());
    target.on('close', () => {
      body.destroy();
      resolve();
    });
    body.pipe(target);
  });
}

/** The body of a JSON-RPC error that answers no particular request (`id: null`). */
export function jsonRpcErrorBody(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/** A JSON-RPC error answer, for what the endpoint refuses before the SDK sees it. */
export function jsonRpcError(
  target: ServerResponse,
  status: number,
  code: number,
  message: string,
  extraHeaders: Record<string, string> = {},
): void {
  const body = jsonRpcErrorBody(code, message);
  target.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...extraHeaders,
  });
  target.end(body);
}
