import type { AddressInfo } from 'node:net';

/** What a benchmark server prints on stdout once it listens; the harness waits for it. */
export const READY_PREFIX = 'BENCH_READY ';

export interface ReadyLine {
  readonly target: string;
  readonly pid: number;
  readonly port: number;
  /** Milliseconds from process start (`process.uptime()`) to listening: module loading included. */
  readonly bootMs: number;
  readonly tools: number;
  /** Milliseconds from the server module's first statement (static imports loaded) to listening. */
  readonly setupMs?: number;
  /** Milliseconds of named setup phases, when the server measures them. */
  readonly phases?: Readonly<Record<string, number>>;
}

/** What a server started with `TELEMETRY` prints on stdout when asked, after a flush. */
export const TELEMETRY_PREFIX = 'BENCH_TELEMETRY ';
/** The signal that asks a `TELEMETRY` server for its counts (`shared/otel.ts`). */
export const TELEMETRY_SIGNAL = 'SIGUSR2';

/** What a `TELEMETRY` server's OpenTelemetry SDK exported since it was registered. */
export interface TelemetryCounts {
  /** Spans of kind SERVER: one per MCP request. */
  readonly serverSpans: number;
  /** `execute_tool …` spans: one per tool call. */
  readonly toolSpans: number;
  /** Any other span. */
  readonly otherSpans: number;
  /** Records of `toolwright.tool.call.duration`, as of the last metric export. */
  readonly toolDurations: number;
  /** Records of `mcp.server.operation.duration`, as of the last metric export. */
  readonly mcpDurations: number;
}

/** Where a server's `@opentelemetry/api` and the library's come from. */
export interface ApiCopies {
  readonly bench: { readonly dir: string; readonly version: string };
  readonly library: { readonly dir: string; readonly version: string };
}

/** The `BENCH_TELEMETRY` line: the counts, or the flush's error. */
export type TelemetryLine = (TelemetryCounts | { readonly error: string }) & {
  readonly api: ApiCopies;
};

/** Prints the ready line for a server that listens on `address`. */
export function announceReady(
  target: string,
  address: AddressInfo | string | null,
  tools: number,
  setupStart?: number,
  phases?: Readonly<Record<string, number>>,
) {
  const bootMs = process.uptime() * 1000;
  if (address === null || typeof address === 'string') {
    throw new Error(`${target}: expected a TCP address, got ${String(address)}`);
  }
  const line: ReadyLine = {
    target,
    pid: process.pid,
    port: address.port,
    bootMs,
    tools,
    ...(setupStart !== undefined && { setupMs: performance.now() - setupStart }),
    ...(phases !== undefined && { phases }),
  };
  console.log(`${READY_PREFIX}${JSON.stringify(line)}`);
  console.log(`${target} listening on http://127.0.0.1:${address.port}/mcp (${tools} tools)`);
}

/** `PORT` from the environment, or `fallback`; `0` picks a free port. */
export function portFromEnv(fallback: number): number {
  const raw = process.env.PORT;
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be an integer in 0..65535, got "${raw}".`);
  }
  return port;
}

/** Closes `close` on SIGTERM / SIGINT and exits. */
export function exitOnSignals(close: () => Promise<unknown>): void {
  const stop = () => {
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
