/**
 * `npm run test:conformance`: runs the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`) against the toolwright fixture app, scenario by scenario.
 *
 * Starts `conformance.app.ts` on a free loopback port, waits until it answers, runs each required
 * server scenario as its own `conformance server --scenario` process, reads the suite's
 * `checks.json`, and — for the scenarios that call a fixture tool — checks through `GET /conformance/calls`
 * that the fixture tool's handler really ran (some suite checks also pass on a "tool not found"
 * answer). Prints a PASS/FAIL table, stops the server, and exits 1 on any failure. Every step is
 * bounded by a timeout.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const { AbortSignal, fetch } = globalThis;
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');

/**
 * Each scenario, the fixture (tool, resource, prompt or completer) it must run, if any, and for
 * a scenario that runs none but lists them, the names its checks' `details` must show.
 */
const SCENARIOS = [
  ['server-initialize'],
  ['ping'],
  ['tools-list'],
  ['dns-rebinding-protection'],
  ['tools-call-simple-text', 'test_simple_text'],
  ['tools-call-image', 'test_image_content'],
  ['tools-call-audio', 'test_audio_content'],
  ['tools-call-embedded-resource', 'test_embedded_resource'],
  ['tools-call-mixed-content', 'test_multiple_content_types'],
  ['tools-call-error', 'test_error_handling'],
  ['tools-call-with-logging', 'test_tool_with_logging'],
  ['tools-call-with-progress', 'test_tool_with_progress'],
  ['json-schema-2020-12'],
  ['tools-call-elicitation', 'test_elicitation'],
  ['elicitation-sep1034-defaults', 'test_elicitation_sep1034_defaults'],
  ['elicitation-sep1330-enums', 'test_elicitation_sep1330_enums'],
  ['logging-set-level'],
  ['completion-complete', 'test_prompt_with_arguments.complete'],
  // The list scenarios pass on an empty list: their checks' details must name the fixtures.
  ['resources-list', undefined, { details: 'resources', names: ['test://static-text'] }],
  ['resources-read-text', 'static_text'],
  ['resources-read-binary', 'static_binary'],
  ['resources-templates-read', 'template_data'],
  // Subscribing is acknowledged and changes nothing (a stateless server never notifies).
  ['resources-subscribe'],
  ['resources-unsubscribe'],
  ['prompts-list', undefined, { details: 'prompts', names: ['test_simple_prompt'] }],
  ['prompts-get-simple', 'test_simple_prompt'],
  ['prompts-get-with-args', 'test_prompt_with_arguments'],
  ['prompts-get-embedded-resource', 'test_prompt_with_embedded_resource'],
  ['prompts-get-with-image', 'test_prompt_with_image'],
];

const TOTAL_TIMEOUT_MS = 150_000;
const STARTUP_TIMEOUT_MS = 45_000;
const SCENARIO_TIMEOUT_MS = 30_000;
const HTTP_TIMEOUT_MS = 5_000;

const require = createRequire(import.meta.url);
const suitePackage = require.resolve('@modelcontextprotocol/conformance/package.json');
const suiteBin = join(
  dirname(suitePackage),
  JSON.parse(await readFile(suitePackage, 'utf8')).bin.conformance,
);

/** A free loopback port. */
function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

/** Runs a process to its end or `timeoutMs`; never rejects. */
function run(command, args, { timeoutMs, env = process.env }) {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => (output += `\n${error.stack}`));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, timedOut, output });
    });
  });
}

/** The fixture's invocation counts, or undefined when it does not answer. */
async function invocations(base) {
  try {
    const response = await fetch(`${base}/conformance/calls`, {
      signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
    });
    return response.ok ? await response.json() : undefined;
  } catch {
    return undefined;
  }
}

/** The suite's `checks.json` written under `dir`, or undefined. */
async function readChecks(dir) {
  try {
    for (const entry of await readdir(dir, { recursive: true })) {
      if (entry.endsWith('checks.json'))
        return JSON.parse(await readFile(join(dir, entry), 'utf8'));
    }
  } catch {
    // no results: reported as a failure below
  }
  return undefined;
}

async function startServer(port) {
  const server = spawn(process.execPath, ['--import', 'tsx', join(here, 'conformance.app.ts')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  server.stdout.on('data', (chunk) => (log += chunk));
  server.stderr.on('data', (chunk) => (log += chunk));
  let exited = false;
  server.on('exit', () => (exited = true));
  return {
    get log() {
      return log;
    },
    get exited() {
      return exited;
    },
    async stop() {
      if (exited) return;
      const gone = new Promise((done) => server.once('exit', done));
      server.kill('SIGTERM');
      const timer = setTimeout(() => server.kill('SIGKILL'), 5_000);
      await gone;
      clearTimeout(timer);
    },
  };
}

async function waitUntilReady(server, base) {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (server.exited) throw new Error('the fixture app exited during startup');
    if ((await invocations(base)) !== undefined) return;
    await sleep(200);
  }
  throw new Error(`the fixture app did not answer within ${STARTUP_TIMEOUT_MS / 1000}s`);
}

async function runScenario(scenario, tool, listed, url, base, resultsDir) {
  const started = Date.now();
  const before = tool ? await invocations(base) : undefined;
  const outputDir = join(resultsDir, scenario);
  const result = await run(
    process.execPath,
    [suiteBin, 'server', '--url', url, '--scenario', scenario, '--output-dir', outputDir],
    { timeoutMs: SCENARIO_TIMEOUT_MS },
  );
  const checks = (await readChecks(outputDir)) ?? [];
  const count = (status) => checks.filter((check) => check.status === status).length;
  const passed = count('SUCCESS');
  const failed = count('FAILURE');
  const warnings = count('WARNING');
  const problems = [];
  if (result.timedOut) problems.push(`timed out after ${SCENARIO_TIMEOUT_MS / 1000}s`);
  else if (result.code !== 0) problems.push(`suite exited ${result.code ?? result.signal}`);
  if (checks.length === 0) problems.push('no checks.json');
  else if (passed === 0) problems.push('no passing check');
  if (failed > 0) problems.push(`${failed} failed check(s)`);
  let invoked = '-';
  if (listed) {
    const shown = checks.flatMap((check) => check.details?.[listed.details] ?? []);
    const missing = listed.names.filter((name) => !shown.includes(name));
    invoked = `${listed.details} listed`;
    if (missing.length > 0)
      problems.push(`the ${listed.details} listed lack ${missing.join(', ')}`);
  }
  if (tool) {
    const after = await invocations(base);
    const delta = (after?.[tool] ?? 0) - (before?.[tool] ?? 0);
    invoked = `${tool} x${delta}`;
    if (!(delta > 0)) problems.push(`fixture tool ${tool} was not invoked`);
  }
  return {
    scenario,
    ok: problems.length === 0,
    checks: `${passed} ok / ${failed} failed / ${warnings} warn`,
    invoked,
    ms: Date.now() - started,
    problems,
    output: result.output,
  };
}

function printTable(rows) {
  const header = ['scenario', 'result', 'suite checks', 'fixture run', 'time'];
  const lines = rows.map((r) => [
    r.scenario,
    r.ok ? 'PASS' : 'FAIL',
    r.checks,
    r.invoked,
    `${(r.ms / 1000).toFixed(1)}s`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const format = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  console.log(`\n${format(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const line of lines) console.log(format(line));
}

async function main() {
  const started = Date.now();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const url = `${base}/mcp`;
  const resultsDir = await mkdtemp(join(tmpdir(), 'toolwright-conformance-'));
  const server = await startServer(port);
  const watchdog = setTimeout(async () => {
    console.error(`\nconformance: the run exceeded ${TOTAL_TIMEOUT_MS / 1000}s; aborting.`);
    await server.stop();
    process.exit(1);
  }, TOTAL_TIMEOUT_MS);
  const rows = [];
  try {
    await waitUntilReady(server, base);
    console.log(`conformance: fixture app ready at ${url} (${Date.now() - started} ms)`);
    for (const [scenario, tool, listed] of SCENARIOS) {
      const row = await runScenario(scenario, tool, listed, url, base, resultsDir);
      console.log(`${row.ok ? 'PASS' : 'FAIL'} ${scenario}`);
      if (!row.ok) console.log(`  ${row.problems.join('; ')}\n${indent(row.output)}`);
      rows.push(row);
      if (server.exited) throw new Error('the fixture app exited during the run');
    }
  } catch (error) {
    console.error(`conformance: ${error.message}\n--- fixture app output ---\n${server.log}`);
    rows.push({ scenario: '(runner)', ok: false, checks: '-', invoked: '-', ms: 0, problems: [] });
  } finally {
    await server.stop();
    clearTimeout(watchdog);
    await rm(resultsDir, { recursive: true, force: true });
  }
  printTable(rows);
  const failed = rows.filter((r) => !r.ok);
  const passed = rows.length - failed.length;
  console.log(
    `\n${passed}/${SCENARIOS.length} scenarios passed in ${((Date.now() - started) / 1000).toFixed(1)}s`,
  );
  if (failed.length > 0 || passed !== SCENARIOS.length) {
    if (!rows.some((r) => r.scenario === '(runner)') && failed.length > 0) {
      console.log(`--- fixture app output ---\n${server.log}`);
    }
    process.exitCode = 1;
  }
}

function indent(text) {
  return text
    .trim()
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

await main();
