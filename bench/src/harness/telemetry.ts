/**
 * The harness's side of the `-otel` targets: asks a server started with `TELEMETRY=memory` what
 * its OpenTelemetry SDK exported (SIGUSR2; the server flushes, then prints one line), once after
 * it starts and after each of its cells, outside the measured window. A cell passes when every
 * measured answer has its spans and histogram records: at least one SERVER span and one
 * `mcp.server.operation.duration` record per answer, and on `tools/call` one `execute_tool` span
 * and one `toolwright.tool.call.duration` record too (the counts also hold the warm-up's and the
 * checks', so they exceed the answers). A server that exports nothing, or drops spans, fails the
 * run rather than measuring less than it claims.
 */
import {
  TELEMETRY_PREFIX,
  TELEMETRY_SIGNAL,
  type TelemetryCounts,
  type TelemetryLine,
} from '../shared/ready.js';
import { fixed, int } from './format.js';
import { BenchFailure, type Era, type Scenario } from './mcp.js';
import type { RunningServer } from './server-process.js';

/** The server's counts, after a flush; a failed flush fails the run. */
async function ask(server: RunningServer): Promise<Extract<TelemetryLine, TelemetryCounts>> {
  const line = JSON.parse(
    await server.ask(TELEMETRY_SIGNAL, TELEMETRY_PREFIX, 30_000),
  ) as TelemetryLine;
  if ('error' in line) {
    throw new BenchFailure(`${server.spec.label}: its OpenTelemetry flush failed: ${line.error}`);
  }
  return line;
}

/**
 * Checks a freshly started telemetry server (its first requests, the 2025 `initialize` among
 * them, must have SERVER spans: the SDK the server registered is the one the library sees) and
 * returns the check of each cell (given the cell's measured answers).
 */
export async function watchTelemetry(
  server: RunningServer,
): Promise<(scenario: Scenario, era: Era, answers: number) => Promise<void>> {
  const label = server.spec.label;
  const first = await ask(server);
  if (first.serverSpans === 0 || first.mcpDurations === 0) {
    throw new BenchFailure(
      `${label}: no MCP SERVER span or duration record after its first requests ` +
        `(${JSON.stringify(first)}): the library does not see the SDK the server registered`,
    );
  }
  const { bench, library } = first.api;
  console.log(
    `  OpenTelemetry SDK: ${int(first.serverSpans)} SERVER spans and ${int(first.mcpDurations)} ` +
      `duration records after the first requests; @opentelemetry/api ${bench.version} from ` +
      `${bench.dir}` +
      (library.dir === bench.dir
        ? ", the library's own copy"
        : `; the library loads ${library.version} from ${library.dir} (another copy: they share ` +
          `the global registration only when their versions are compatible)`),
  );
  let last: TelemetryCounts = first;
  return async (scenario, era, answers) => {
    const now = await ask(server);
    const before = last;
    last = now;
    const added = (key: keyof TelemetryCounts) => now[key] - before[key];
    const expected: Array<[keyof TelemetryCounts, string]> = [
      ['serverSpans', 'SERVER spans'],
      ['mcpDurations', 'mcp.server.operation.duration records'],
      ...(scenario === 'call'
        ? ([
            ['toolSpans', 'execute_tool spans'],
            ['toolDurations', 'toolwright.tool.call.duration records'],
          ] as Array<[keyof TelemetryCounts, string]>)
        : []),
    ];
    const short = expected.map(([key, what]) => `+${int(added(key))} ${what}`).join(', ');
    console.log(
      `    otel: ${short} for ${int(answers)} measured answers (warm-up and checks included: ` +
        `${fixed(added('serverSpans') / answers, 2)} SERVER spans per measured answer)`,
    );
    const missing = expected.filter(([key]) => added(key) < answers);
    if (missing.length > 0) {
      throw new BenchFailure(
        `${label} — ${scenario} ${era}: fewer ${missing.map(([, what]) => what).join(', ')} ` +
          `than the ${int(answers)} measured answers (${short}): the SDK exported nothing or ` +
          `dropped spans (the BatchSpanProcessor's queue holds 2,048), so the cell did not ` +
          `measure what it claims`,
      );
    }
  };
}
