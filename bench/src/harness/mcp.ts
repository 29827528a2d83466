/**
 * The MCP requests the load generator replays, and the checks every answer must pass.
 *
 * 2025 era: one real `initialize` per target (and `notifications/initialized`), then stateless
 * POSTs carrying `mcp-protocol-version: <the version the server negotiated>`.
 * 2026-07-28 era: the exact headers and bodies `@modelcontextprotocol/client`, pinned to
 * 2026-07-28, sends for `callTool` and `listTools` (and, against a server that declares resources
 * and prompts, `listResources`, `listPrompts` and `readResource`), captured from the real client
 * through its `fetch` option against the first target, then replayed byte for byte to every
 * target.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  PROMPT_COUNT,
  READ_RESOURCE,
  RESOURCE_COUNT,
  benchPrompts,
  benchResources,
} from '../shared/operations.js';
import { post, type RawResponse } from './http-client.js';

export type Era = '2025' | '2026';
/** `tools/call echo` and `tools/list`: every target serves them. */
export type ToolScenario = 'call' | 'list';
/**
 * `resources/list`, `prompts/list` and `resources/read` of one static resource: only the
 * targets that declare the bench's resources and prompts (`shared/operations.ts`) serve them.
 */
export type OperationScenario = 'resources' | 'prompts' | 'read';
export type Scenario = ToolScenario | OperationScenario;

/** One request as the load generator sends it. */
export interface ReplayRequest {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** An era's requests: the tools' always, the operations' when a target declared them. */
export type EraRequests = Record<ToolScenario, ReplayRequest> &
  Partial<Record<OperationScenario, ReplayRequest>>;

/** The text every `tools/call echo` sends and expects back. */
export const ECHO_TEXT = 'hello from the toolwright bench';
export const MODERN_VERSION = '2026-07-28';
const LEGACY_VERSION = '2025-06-18';
export const ACCEPT = 'application/json, text/event-stream';
export const CLIENT_INFO = { name: 'toolwright-bench', version: '0.0.0' };

/** Stops the run: the harness never measures an answer it could not validate. */
export class BenchFailure extends Error {}

/** The JSON-RPC messages of a JSON or SSE (`event: message` / `data: …`) answer. */
export function messagesOf(response: RawResponse): unknown[] {
  const type = String(response.headers['content-type'] ?? '');
  const body = response.body;
  if (type.startsWith('text/event-stream') || /^(event|data|id|retry):/m.test(body.trimStart())) {
    const messages: unknown[] = [];
    for (const event of body.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data.trim() !== '') messages.push(JSON.parse(data));
    }
    return messages;
  }
  if (body.trim() === '') return [];
  const parsed = JSON.parse(body) as unknown;
  return Array.isArray(parsed) ? parsed : [parsed];
}

/** A response in a failure's words: status, content type and the start of the body. */
export function describe(response: RawResponse): string {
  const body = response.body.length > 600 ? `${response.body.slice(0, 600)}…` : response.body;
  return `HTTP ${response.status} ${String(response.headers['content-type'] ?? '')}: ${body}`;
}

/** The `result` of the JSON-RPC answer to `id`, or a `BenchFailure` saying what came instead. */
export function resultOf(response: RawResponse, id: unknown, what: string): any {
  if (response.status < 200 || response.status > 299) {
    throw new BenchFailure(`${what}: not a 2xx answer — ${describe(response)}`);
  }
  let messages: unknown[];
  try {
    messages = messagesOf(response);
  } catch (error) {
    throw new BenchFailure(
      `${what}: the body is not JSON or SSE JSON (${(error as Error).message}) — ${describe(response)}`,
    );
  }
  const answer = messages.find(
    (m): m is Record<string, unknown> =>
      typeof m === 'object' && m !== null && (m as { id?: unknown }).id === id,
  );
  if (!answer)
    throw new BenchFailure(`${what}: no answer to id ${String(id)} — ${describe(response)}`);
  if (answer.error !== undefined || answer.result === undefined) {
    throw new BenchFailure(`${what}: not a result — ${describe(response)}`);
  }
  return answer.result;
}

/** Checks a `tools/call echo` answer: a result, not an error, echoing {@link ECHO_TEXT}. */
export function checkCall(response: RawResponse, id: unknown, what: string): void {
  checkEchoed(resultOf(response, id, what), ECHO_TEXT, what, response);
}

/**
 * Checks a `CallToolResult` of a tool that answers `{ text }`: not an error, `expected` in its
 * structured content and as the JSON of its text content. `response` (where it came from) goes
 * into the failure's message.
 */
export function checkEchoed(result: any, expected: string, what: string, response: RawResponse) {
  if (result?.isError === true) {
    throw new BenchFailure(`${what}: the tool failed — ${describe(response)}`);
  }
  const text = result?.content?.[0]?.text;
  if (result?.structuredContent?.text !== expected || typeof text !== 'string') {
    throw new BenchFailure(`${what}: not the echoed text — ${describe(response)}`);
  }
  if ((JSON.parse(text) as { text?: unknown }).text !== expected) {
    throw new BenchFailure(
      `${what}: the text content is not the echoed JSON — ${describe(response)}`,
    );
  }
}

/** Checks a `tools/list` answer: a result with exactly `count` tools, `echo` and `tool_*`. */
export function checkList(response: RawResponse, id: unknown, what: string, count: number): void {
  const result = resultOf(response, id, what);
  const tools = result.tools as Array<{ name?: unknown; inputSchema?: unknown }> | undefined;
  if (!Array.isArray(tools) || tools.length !== count) {
    throw new BenchFailure(
      `${what}: expected ${count} tools, got ${Array.isArray(tools) ? tools.length : 'no list'}`,
    );
  }
  const names = new Set(tools.map((tool) => tool.name));
  const missing = ['echo', ...Array.from({ length: count - 1 }, (_, i) => `tool_${i}`)].filter(
    (name) => !names.has(name),
  );
  if (missing.length > 0 || tools.some((tool) => typeof tool.inputSchema !== 'object')) {
    throw new BenchFailure(
      `${what}: tools missing or without inputSchema (${missing.slice(0, 5).join(', ')})`,
    );
  }
}

/** Checks that `listed` names exactly `expected`, in any order. */
function checkNames(listed: unknown, expected: readonly string[], kind: string, what: string) {
  if (!Array.isArray(listed) || listed.length !== expected.length) {
    throw new BenchFailure(
      `${what}: expected ${expected.length} ${kind}, got ${Array.isArray(listed) ? listed.length : 'no list'}`,
    );
  }
  const names = new Set(listed.map((entry: { name?: unknown }) => entry.name));
  const missing = expected.filter((name) => !names.has(name));
  if (missing.length > 0) {
    throw new BenchFailure(`${what}: ${kind} missing (${missing.slice(0, 5).join(', ')})`);
  }
}

/** Checks a `resources/list` answer: every static resource of the bench, with its URI. */
export function checkResources(response: RawResponse, id: unknown, what: string): void {
  const resources = resultOf(response, id, what).resources;
  const expected = benchResources();
  checkNames(
    resources,
    expected.map((resource) => resource.name),
    'resources',
    what,
  );
  const uris = new Set((resources as Array<{ uri?: unknown }>).map((resource) => resource.uri));
  if (expected.some((resource) => !uris.has(resource.uri))) {
    throw new BenchFailure(`${what}: resources listed without their URIs`);
  }
}

/** Checks a `prompts/list` answer: every prompt of the bench, each with its arguments. */
export function checkPrompts(response: RawResponse, id: unknown, what: string): void {
  const prompts = resultOf(response, id, what).prompts;
  checkNames(
    prompts,
    benchPrompts().map((prompt) => prompt.name),
    'prompts',
    what,
  );
  if ((prompts as Array<{ arguments?: unknown }>).some((p) => !Array.isArray(p.arguments))) {
    throw new BenchFailure(`${what}: prompts listed without their arguments`);
  }
}

/** Checks a `resources/read` answer: {@link READ_RESOURCE}'s text, at its URI. */
export function checkRead(response: RawResponse, id: unknown, what: string): void {
  const contents = resultOf(response, id, what).contents as
    Array<{ uri?: unknown; text?: unknown }> | undefined;
  const [content] = contents ?? [];
  if (
    contents?.length !== 1 ||
    content.uri !== READ_RESOURCE.uri ||
    content.text !== READ_RESOURCE.text
  ) {
    throw new BenchFailure(`${what}: not ${READ_RESOURCE.uri}'s text — ${describe(response)}`);
  }
}

/** The JSON-RPC id of a replayed request. */
export function idOf(request: ReplayRequest): unknown {
  return (JSON.parse(request.body) as { id?: unknown }).id;
}

/** Sends `request` once and checks the answer; returns the raw answer. */
export async function validateOnce(
  url: string,
  request: ReplayRequest,
  scenario: Scenario,
  toolCount: number,
  what: string,
): Promise<RawResponse> {
  const response = await post(url, request.headers, request.body);
  const id = idOf(request);
  if (scenario === 'call') checkCall(response, id, what);
  else if (scenario === 'list') checkList(response, id, what, toolCount);
  else if (scenario === 'resources') checkResources(response, id, what);
  else if (scenario === 'prompts') checkPrompts(response, id, what);
  else checkRead(response, id, what);
  return response;
}

/**
 * A real 2025-era `initialize` (then `notifications/initialized`); the version the server chose.
 * `extraHeaders` go with both (a bearer token).
 */
export async function initialize2025(
  url: string,
  what: string,
  extraHeaders: Readonly<Record<string, string>> = {},
): Promise<string> {
  const headers = { 'content-type': 'application/json', accept: ACCEPT, ...extraHeaders };
  const response = await post(
    url,
    headers,
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: CLIENT_INFO },
    }),
  );
  const result = resultOf(response, 0, `${what} initialize`);
  const version = result.protocolVersion;
  if (typeof version !== 'string' || version >= MODERN_VERSION) {
    throw new BenchFailure(`${what} initialize: unexpected protocolVersion ${String(version)}`);
  }
  const initialized = await post(
    url,
    { ...headers, 'mcp-protocol-version': version },
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  );
  if (initialized.status < 200 || initialized.status > 299) {
    throw new BenchFailure(`${what} notifications/initialized: ${describe(initialized)}`);
  }
  return version;
}

/**
 * Stateless 2025-era requests with the negotiated `mcp-protocol-version`: the tools', and the
 * operations' (sent only to the targets that declare them).
 */
export function requests2025(version: string): EraRequests {
  const headers = {
    'content-type': 'application/json',
    accept: ACCEPT,
    'mcp-protocol-version': version,
  };
  const request = (id: number, method: string, params: object) => ({
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  return {
    call: {
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: ECHO_TEXT } },
      }),
    },
    list: {
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
    },
    resources: request(3, 'resources/list', {}),
    prompts: request(4, 'prompts/list', {}),
    read: request(5, 'resources/read', { uri: READ_RESOURCE.uri }),
  };
}

/** Headers worth replaying: what the client chose, not what fetch adds on the wire. */
const REPLAYED_HEADERS = /^(content-type|accept|mcp-.*|authorization)$/i;

/**
 * Runs the real 2026-07-28 client against `url` and returns the `tools/call echo` and
 * `tools/list` requests it sent (headers and body as sent), after checking its own results; when
 * the server declares resources and prompts, its `resources/list`, `prompts/list` and
 * `resources/read` of {@link READ_RESOURCE} too.
 * `extraHeaders` (a bearer token, for a server that signs callers in) are added on the wire but
 * not captured: each target's requests get their own.
 */
export async function capture2026(
  url: string,
  toolCount: number,
  extraHeaders: Readonly<Record<string, string>> = {},
): Promise<EraRequests> {
  const sent: Array<{ headers: Record<string, string>; body: string }> = [];
  const spy = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (typeof init?.body === 'string') {
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => {
        if (REPLAYED_HEADERS.test(name)) headers[name] = value;
      });
      sent.push({ headers, body: init.body });
    }
    if (Object.keys(extraHeaders).length === 0) return fetch(input, init);
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(extraHeaders)) headers.set(name, value);
    return fetch(input, { ...init, headers });
  };
  const client = new Client(CLIENT_INFO, {
    versionNegotiation: { mode: { pin: MODERN_VERSION } },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: spy }));
  let operations: boolean;
  try {
    const called = await client.callTool({ name: 'echo', arguments: { text: ECHO_TEXT } });
    if ((called.structuredContent as { text?: unknown } | undefined)?.text !== ECHO_TEXT) {
      throw new BenchFailure(`2026 capture: callTool answered ${JSON.stringify(called)}`);
    }
    const listed = await client.listTools();
    if (listed.tools.length !== toolCount) {
      throw new BenchFailure(`2026 capture: listTools gave ${listed.tools.length} tools`);
    }
    const capabilities = client.getServerCapabilities();
    operations = Boolean(capabilities?.resources && capabilities.prompts);
    if (operations) await captureOperations(client);
  } finally {
    await client.close();
  }
  const find = (method: string) => {
    const hit = sent.find((s) => (JSON.parse(s.body) as { method?: string }).method === method);
    if (!hit) throw new BenchFailure(`2026 capture: the client sent no ${method}`);
    const version = hit.headers['mcp-protocol-version'];
    if (version !== MODERN_VERSION) {
      throw new BenchFailure(`2026 capture: ${method} went out as ${String(version)}, not 2026`);
    }
    return hit;
  };
  const requests: EraRequests = { call: find('tools/call'), list: find('tools/list') };
  if (!operations) return requests;
  return {
    ...requests,
    resources: find('resources/list'),
    prompts: find('prompts/list'),
    read: find('resources/read'),
  };
}

/** The client's `listResources`, `listPrompts` and `readResource`, each checked. */
async function captureOperations(client: Client): Promise<void> {
  const resources = await client.listResources();
  if (resources.resources.length !== RESOURCE_COUNT) {
    throw new BenchFailure(
      `2026 capture: listResources gave ${resources.resources.length} resources`,
    );
  }
  const prompts = await client.listPrompts();
  if (prompts.prompts.length !== PROMPT_COUNT) {
    throw new BenchFailure(`2026 capture: listPrompts gave ${prompts.prompts.length} prompts`);
  }
  const read = await client.readResource({ uri: READ_RESOURCE.uri });
  const [content] = read.contents;
  if (read.contents.length !== 1 || !('text' in content) || content.text !== READ_RESOURCE.text) {
    throw new BenchFailure(`2026 capture: readResource answered ${JSON.stringify(read)}`);
  }
}

/**
 * Whether the target answers a 2026-07-28 request with a result (true) or refuses the revision
 * (false: an unsupported-version error or a 4xx). Anything else is a failure.
 */
export async function speaks2026(url: string, request: ReplayRequest, what: string) {
  const response = await post(url, request.headers, request.body);
  try {
    resultOf(response, idOf(request), what);
    return true;
  } catch (error) {
    if (response.status >= 400 && response.status < 500) return false;
    const text = response.body;
    if (/unsupported protocol version|-32602|-32000/i.test(text) && /version/i.test(text)) {
      return false;
    }
    throw error;
  }
}
