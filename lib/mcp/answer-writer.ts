import type { ServerResponse } from 'node:http';
import { type ProtocolError, SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import { cacheFieldsOf, type McpCacheHints } from './cache-hints.js';

/** A protocol era of the direct path: the 2025 revisions (`legacy`) or 2026-07-28 (`modern`). */
export type Era = 'legacy' | 'modern';

/** The list methods the direct path answers, each with the key of its result's list. */
export const LIST_KEYS = Object.freeze({
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
} as const);

/** A method {@link LIST_KEYS} names. */
export type ListMethod = keyof typeof LIST_KEYS;

/** Whether `method` is one of the list methods {@link LIST_KEYS} names. */
export function isListMethod(method: unknown): method is ListMethod {
  return typeof method === 'string' && Object.hasOwn(LIST_KEYS, method);
}

/** A JSON-RPC error object, as the SDK writes one. */
export interface JsonRpcRefusal {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** The JSON-RPC error object the SDK writes for a `ProtocolError` a handler threw. */
export function refusalOf(error: ProtocolError): JsonRpcRefusal {
  return {
    code: error.code,
    message: error.message,
    ...(error.data !== undefined && { data: error.data }),
  };
}

/** The headers of a 2025-era answer, as the SDK's transport opens its SSE stream. */
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** The keys {@link modernResult} sets, and `toJSON`, which would write the result otherwise. */
const MODERN_RESULT_KEYS = ['resultType', 'ttlMs', 'cacheScope', '_meta', 'toJSON'] as const;

/**
 * Writes the direct path's answers with the bytes the SDK's transports write for the same
 * message: a 2026-era answer is one JSON body, as its per-request transport sends it; a 2025-era
 * answer is an SSE stream of `event: message` frames (notifications, then the answer), as its
 * stateless transport sends it; and a 2026-era result carries what the SDK's encoding adds to
 * it (`resultType`, the cache fields of a cacheable method, the server's identity in `_meta`).
 * test/mcp/answer-writer.spec.ts compares the bytes with the SDK's.
 *
 * One per endpoint: it remembers what every answer of the endpoint shares (the end a 2026-era
 * result gets, the serialised start of a prepared list's answer).
 */
export class AnswerWriter {
  /**
   * The end a 2026-era result gets after its own keys, once written: by method for a cacheable
   * one (each list has its own cache hint), under `''` for every other.
   */
  private readonly ends = new Map<string, string>();
  /**
   * The serialised start of a list answer, per era, method and list: a prepared list is one
   * frozen array, so its answer is serialised once (a filtered list is a new array each time, and
   * goes with it). Kept as bytes, with the SSE frame's start on the 2025 era, so a list answer
   * encodes only its id. The lists of resources, templates and prompts are the same array on
   * both eras.
   */
  private readonly listHeads: Readonly<Record<Era, ListHeads>> = {
    legacy: listHeads(),
    modern: listHeads(),
  };

  /**
   * @param serverInfo the identity a 2026-era result carries in `_meta`, as the SDK's server has it.
   * @param cacheHints the endpoint's cache hints of each list (the SDK server's `cacheHints`).
   */
  constructor(
    private readonly serverInfo: unknown,
    private readonly cacheHints?: McpCacheHints,
  ) {}

  /**
   * The JSON-RPC text of the answer to request `id` of `method` with `result`. Throws what
   * `JSON.stringify` throws (a result nested too deep, a cycle).
   */
  resultText(
    era: Era,
    method: string,
    id: string | number,
    result: Record<string, unknown>,
  ): string {
    if (era === 'legacy') return JSON.stringify({ result, jsonrpc: '2.0', id });
    if (hasAnyKey(result, MODERN_RESULT_KEYS)) {
      return JSON.stringify({
        result: modernResult(result, method, this.serverInfo, this.cacheHints),
        jsonrpc: '2.0',
        id,
      });
    }
    const json = JSON.stringify(result);
    const end = this.modernEnd(method);
    const body = json === '{}' ? `{${end}` : `${json.slice(0, -1)},${end}`;
    return `{"result":${body},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
  }

  /** The JSON-RPC text of the error answering request `id`. */
  errorText(id: string | number, refusal: JsonRpcRefusal): string {
    return JSON.stringify({ jsonrpc: '2.0', id, error: refusal });
  }

  /**
   * Writes a notification of a 2025-era request, ahead of its answer: an SSE frame, after the
   * stream's headers if it is the first.
   */
  writeNotification(target: ServerResponse, method: string, params: unknown): void {
    if (!target.headersSent) target.writeHead(200, SSE_HEADERS);
    target.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method, params })}\n\n`);
  }

  /**
   * Writes an answer's JSON-RPC text ({@link resultText}, {@link errorText}) and ends the
   * response: one JSON body on the 2026 era, the last SSE frame on the 2025 era.
   */
  writeAnswer(target: ServerResponse, era: Era, text: string): void {
    if (era === 'modern') {
      target.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      target.end(text);
      return;
    }
    const frame = `event: message\ndata: ${text}\n\n`;
    // The whole stream at once (no notification went first): one write, its length known.
    if (!target.headersSent) {
      target.writeHead(200, { ...SSE_HEADERS, 'content-length': Buffer.byteLength(frame) });
    }
    target.end(frame);
  }

  /**
   * Writes the answer to request `id` of a list method with `list` and ends the response, from
   * the list's serialised start (see `listHeads`) and the id.
   */
  writeList(
    target: ServerResponse,
    era: Era,
    method: ListMethod,
    id: string | number,
    list: readonly object[],
  ): void {
    const modern = era === 'modern';
    const head = this.listHead(era, method, list);
    const rest = modern ? `${JSON.stringify(id)}}` : `${JSON.stringify(id)}}\n\n`;
    const length = head.length + Buffer.byteLength(rest);
    target.writeHead(
      200,
      modern
        ? { 'content-type': 'application/json', 'content-length': length }
        : { ...SSE_HEADERS, 'content-length': length },
    );
    target.cork();
    target.write(head);
    target.end(rest);
  }

  private listHead(era: Era, method: ListMethod, list: readonly object[]): Buffer {
    const heads = this.listHeads[era][method];
    let head = heads.get(list);
    if (head === undefined) {
      const result = { [LIST_KEYS[method]]: list };
      const body =
        era === 'modern' ? modernResult(result, method, this.serverInfo, this.cacheHints) : result;
      const json = `{"result":${JSON.stringify(body)},"jsonrpc":"2.0","id":`;
      head = Buffer.from(era === 'modern' ? json : `event: message\ndata: ${json}`);
      heads.set(list, head);
    }
    return head;
  }

  /**
   * The JSON text {@link modernResult} adds after a result's own keys (the result having none of
   * its keys), without the opening brace: written once per kind of method.
   */
  private modernEnd(method: string): string {
    // Keyed by the method only when it is cacheable: a closed set, so the map stays small.
    const key = cacheFieldsOf(this.cacheHints, method) === undefined ? '' : method;
    let end = this.ends.get(key);
    if (end === undefined) {
      end = JSON.stringify(modernResult({}, method, this.serverInfo, this.cacheHints)).slice(1);
      this.ends.set(key, end);
    }
    return end;
  }
}

type ListHeads = Readonly<Record<ListMethod, WeakMap<readonly object[], Buffer>>>;

function listHeads(): ListHeads {
  return {
    'tools/list': new WeakMap(),
    'resources/list': new WeakMap(),
    'resources/templates/list': new WeakMap(),
    'prompts/list': new WeakMap(),
  };
}

function hasAnyKey(value: object, keys: readonly string[]): boolean {
  for (const key of keys) if (key in value) return true;
  return false;
}

/**
 * A 2026-era result: what the SDK adds to every result, and to a cacheable one (its cache
 * fields, from the configured hint of its list over the defaults).
 */
function modernResult(
  result: Record<string, unknown>,
  method: string,
  serverInfo: unknown,
  cacheHints: McpCacheHints | undefined,
): Record<string, unknown> {
  const cache = cacheFieldsOf(cacheHints, method);
  return {
    ...result,
    resultType: 'complete',
    ...(cache && { ttlMs: cache.ttlMs, cacheScope: cache.cacheScope }),
    _meta: { ...(result._meta as object), [SERVER_INFO_META_KEY]: serverInfo },
  };
}
