import { z } from 'zod';

/** One content of a resource read, as MCP sends it: text, or base64 bytes. */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: Record<string, unknown> }
  | { uri: string; mimeType?: string; blob: string; _meta?: Record<string, unknown> };

/** What a resource read resolves to: its contents. */
export interface ResourceRead {
  contents: ResourceContents[];
}

/**
 * What a resource's `read` may return: text, bytes, a content (`{ text }` or `{ blob }`, with a
 * `mimeType` and another `uri` at will), a list of them, or MCP's own `{ contents }`.
 */
export type ResourceBody =
  ResourceItem | readonly ResourceItem[] | { contents: readonly ResourceItem[] };
type ResourceItem =
  | string
  | Uint8Array
  | { uri?: string; mimeType?: string; text: string; _meta?: Record<string, unknown> }
  | { uri?: string; mimeType?: string; blob: Uint8Array | string; _meta?: Record<string, unknown> };

/** One message of a prompt, as MCP sends it. */
export interface PromptMessage {
  role: 'user' | 'assistant';
  content: { type: string; [key: string]: unknown };
}

/** What a prompt get resolves to. */
export interface PromptGet {
  description?: string;
  messages: PromptMessage[];
}

/** What a prompt's `get` may return: one user text, the messages, or both with a description. */
export type PromptBody = string | readonly PromptMessage[] | PromptGet;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CONTENT_KEYS: ReadonlySet<string> = new Set(['uri', 'mimeType', 'text', 'blob', '_meta']);

/** Why one item of a read's body is not a content, or `undefined` when it is one. */
function itemProblem(item: unknown): string | undefined {
  if (typeof item === 'string' || item instanceof Uint8Array) return undefined;
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    return 'is not text, bytes or { text | blob }';
  }
  const content = item as Record<string, unknown>;
  for (const key of Object.keys(content)) {
    if (!CONTENT_KEYS.has(key)) return `has the unknown key "${key}"`;
  }
  const { uri, mimeType, text, blob, _meta } = content;
  if (uri !== undefined && typeof uri !== 'string') return 'has a uri that is not a string';
  if (mimeType !== undefined && typeof mimeType !== 'string') {
    return 'has a mimeType that is not a string';
  }
  if (
    _meta !== undefined &&
    (typeof _meta !== 'object' || _meta === null || Array.isArray(_meta))
  ) {
    return 'has a _meta that is not an object';
  }
  if ((text === undefined) === (blob === undefined)) return 'needs text or blob, one of them';
  if (text !== undefined && typeof text !== 'string') return 'has a text that is not a string';
  if (
    blob !== undefined &&
    !(blob instanceof Uint8Array || (typeof blob === 'string' && BASE64.test(blob)))
  ) {
    return 'has a blob that is neither bytes nor base64';
  }
  return undefined;
}

/**
 * One content as MCP sends it, `uri` first: the item's own, else left for the read to fill in
 * (each read adds the URI it read).
 */
function toContent(item: unknown, mimeType: string | undefined): Record<string, unknown> {
  if (typeof item === 'string') {
    return mimeType === undefined
      ? { uri: undefined, text: item }
      : { uri: undefined, mimeType, text: item };
  }
  if (item instanceof Uint8Array) {
    return mimeType === undefined
      ? { uri: undefined, blob: base64(item) }
      : { uri: undefined, mimeType, blob: base64(item) };
  }
  const { uri, mimeType: own, text, blob, _meta } = item as Record<string, unknown>;
  const type = own ?? mimeType;
  const content: Record<string, unknown> = { uri };
  if (type !== undefined) content.mimeType = type;
  if (text !== undefined) content.text = text;
  else content.blob = blob instanceof Uint8Array ? base64(blob) : blob;
  if (_meta !== undefined) content._meta = _meta;
  return content;
}

/**
 * A body in MCP's own result shape, `{ contents: [...] }` (as MCP SDK handlers return it), as
 * the list of its contents; any other body as it is.
 */
function unwrapped(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const keys = Object.keys(body);
  const { contents } = body as { contents?: unknown };
  return keys.length === 1 && keys[0] === 'contents' && Array.isArray(contents) ? contents : body;
}

/**
 * Checks a read's body and makes it MCP contents (without the URI, which each call adds): text,
 * bytes, `{ text | blob, mimeType?, uri?, _meta? }`, a non-empty list of them, or MCP's own
 * `{ contents: [...] }`. Checked by hand rather than by a union of schemas: a read is as
 * frequent as a call.
 */
export function resourceOutput(mimeType: string | undefined) {
  return z
    .unknown()
    .check((check) => {
      const body = unwrapped(check.value);
      const items = Array.isArray(body) ? body : [body];
      const problem =
        items.length === 0
          ? 'is an empty list'
          : items.map((item, index) => [itemProblem(item), index] as const).find(([why]) => why);
      if (problem === undefined) return;
      const [why, index] = typeof problem === 'string' ? [problem, undefined] : problem;
      check.issues.push({
        code: 'custom',
        message: `A resource read's body ${Array.isArray(body) && index !== undefined ? `item ${index} ` : ''}${why}.`,
        input: body,
        path: index !== undefined && Array.isArray(body) ? [index] : [],
      });
    })
    .transform((value) => {
      const body = unwrapped(value);
      return (Array.isArray(body) ? body : [body]).map((item) => toContent(item, mimeType));
    });
}

function base64(value: Uint8Array): string {
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
}

const promptMessage = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.looseObject({ type: z.string() }),
});

/** Checks a prompt's body and makes it an MCP `GetPromptResult`. */
export const promptOutput = z
  .union([
    z.string(),
    z.array(promptMessage),
    z.object({ description: z.string().optional(), messages: z.array(promptMessage) }),
  ])
  .transform((body): PromptGet => {
    if (typeof body === 'string') {
      return { messages: [{ role: 'user', content: { type: 'text', text: body } }] };
    }
    return Array.isArray(body) ? { messages: body } : body;
  });
