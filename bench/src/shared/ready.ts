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
