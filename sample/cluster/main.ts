/**
 * `npm run sample:cluster`: the help desk sample as it runs behind a load balancer. Starts a
 * Redis (Debian's `redis-server`, on a free loopback port, nothing persisted), two instances of
 * the sample sharing it and one `requestState` key, and a round-robin proxy on PORT (default
 * 3000) in front of them, which skips an instance that is not ready (`/health/ready`). An
 * instance that dies is started again on its port (one that keeps dying is given up, and the
 * others go on). Ctrl-C stops all of it; so does the launcher's own failure: no process it
 * started outlives it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SEEDED_USERS } from '../database/seed.js';
import { accepts, freePort } from '../ports.js';
import { launchRedisServer } from './redis-server.js';
import { RoundRobinProxy } from './round-robin-proxy.js';

const INSTANCES = 2;
const port = Number(process.env.PORT ?? 3000);
/** An instance that dies this many times within a minute is given up. */
const MAX_DEATHS_PER_MINUTE = 3;
/** How long an instance may drain at shutdown (its shutdownGraceMs is 10 s) before SIGKILL. */
const STOP_INSTANCE_MS = 15_000;

if (spawnSync('redis-server', ['--version']).error) {
  console.error(`npm run sample:cluster needs redis-server, which is not installed.
Install it (Debian, Ubuntu: sudo apt-get install -y redis-server; macOS: brew install redis)
and run the command again. Each instance of the sample alone needs nothing more: npm run sample.`);
  process.exit(1);
}

const log = (line: string) => console.log(`[cluster] ${line}`);

/** Prints a child's output lines with a prefix. */
function prefixed(child: ChildProcess, label: string): ChildProcess {
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line.trim()) console.log(`[${label}] ${line}`);
    });
  }
  return child;
}

/** Whether a child is still running: neither exited nor killed by a signal. */
const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** Stops a child: SIGTERM, then SIGKILL if it has not exited within `ms`. */
async function stopChild(child: ChildProcess, ms: number): Promise<void> {
  if (!running(child)) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  await exited;
  clearTimeout(timer);
}

/** One instance of the sample on its port, started again when it dies. */
interface Instance {
  readonly number: number;
  readonly port: number;
  child?: ChildProcess;
  /** When it died lately (`Date.now()`), to give up on one that keeps dying. */
  deaths: number[];
  givenUp: boolean;
}

let redis: ChildProcess | undefined;
const instances: Instance[] = [];
/** The proxy, once it listens. */
const front: { proxy?: RoundRobinProxy } = {};
let stopping = false;

async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  await front.proxy?.close().catch(() => undefined);
  // The instances first (they drain their calls), Redis last.
  const children = instances.map((instance) => instance.child);
  await Promise.all(children.map((child) => child && stopChild(child, STOP_INSTANCE_MS)));
  if (redis) await stopChild(redis, 5_000);
  process.exit(code);
}
/** Kills what is still running at once: the last resort, whatever ends the process. */
function killAll(): void {
  for (const child of [...instances.map((instance) => instance.child), redis]) {
    if (child && running(child)) child.kill('SIGKILL');
  }
}
// A second Ctrl-C does not wait for the instances to drain.
const onSignal = () => (stopping ? (killAll(), process.exit(130)) : void stop(0));
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
// The launcher's own failure stops what it started too.
process.on('uncaughtException', (error) => {
  console.error('[cluster] failed:', error);
  void stop(1);
});
process.on('unhandledRejection', (error) => {
  console.error('[cluster] failed:', error);
  void stop(1);
});
// Whatever ends the process, nothing it started outlives it.
process.on('exit', killAll);

// Compiled (dist-sample/cluster/main.js) the instances run the compiled sample; from source
// (tsx sample/cluster/main.ts) they run it from source.
const here = fileURLToPath(import.meta.url);
const fromSource = here.endsWith('.ts');
const mainScript = resolve(here, '..', '..', fromSource ? 'main.ts' : 'main.js');

/** Starts an instance's process; resolves once it accepts connections, rejects if it exits first. */
async function start(instance: Instance, env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn(process.execPath, [...(fromSource ? ['--import', 'tsx'] : []), mainScript], {
    env: { ...env, PORT: String(instance.port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  instance.child = prefixed(child, `instance ${instance.number}`);
  log(`instance ${instance.number} started (pid ${child.pid}) on port ${instance.port}.`);
  child.once('exit', (code, signal) => died(instance, env, code ?? signal));
  while (!(await accepts(instance.port))) {
    if (!running(child)) throw new Error(`Instance ${instance.number} exited while starting.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** An instance died on its own: start it again, or give it up and go on with the others. */
function died(instance: Instance, env: NodeJS.ProcessEnv, how: number | string | null): void {
  if (stopping) return;
  const now = Date.now();
  instance.deaths = [...instance.deaths.filter((at) => now - at < 60_000), now];
  const pid = instance.child?.pid;
  if (instance.deaths.length >= MAX_DEATHS_PER_MINUTE) {
    instance.givenUp = true;
    log(`instance ${instance.number} (pid ${pid}) exited (${how}) again; giving it up.`);
    if (instances.every((one) => one.givenUp)) {
      log('no instance is left; stopping.');
      void stop(1);
    }
    return;
  }
  log(`instance ${instance.number} (pid ${pid}) exited (${how}); starting it again.`);
  start(instance, env).then(
    () => log(`instance ${instance.number} is back (pid ${instance.child?.pid}).`),
    (error: unknown) => log(`instance ${instance.number} did not start: ${String(error)}`),
  );
}

async function main(): Promise<void> {
  const redisPort = await freePort();
  redis = await launchRedisServer(redisPort);
  log(`redis-server started (pid ${redis.pid}) on port ${redisPort}.`);
  redis.once('exit', (code, signal) => {
    if (stopping) return;
    log(`redis-server exited (${code ?? signal}); stopping.`);
    void stop(1);
  });
  const env = {
    ...process.env,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    // One key for every instance: any of them takes the next round of a 2026-era question.
    HELPDESK_STATE_KEY: process.env.HELPDESK_STATE_KEY ?? randomBytes(32).toString('base64url'),
  };
  // One after the other: the first creates and seeds the database the others open.
  for (let number = 1; number <= INSTANCES; number++) {
    const instance: Instance = { number, port: await freePort(), deaths: [], givenUp: false };
    instances.push(instance);
    await start(instance, env);
  }

  const proxy = (front.proxy = new RoundRobinProxy(
    instances.map((instance) => instance.port),
    {
      onChange: (index, ready, why) =>
        log(`instance ${index + 1} is ${ready ? 'ready' : 'not ready'}: ${why}.`),
    },
  ));
  const base = await proxy.listen(port);
  const [alice, , gina] = SEEDED_USERS;
  const urls = instances.map((instance) => `http://127.0.0.1:${instance.port}`);
  const pids = instances.map((instance) => instance.child!.pid).join(' ');
  console.log(`
Help desk cluster is running: ${INSTANCES} instances behind a round-robin proxy, sharing Redis.

  MCP endpoint   ${base}/mcp    (each request to the next ready instance in turn)
  Credential     Authorization: Bearer ${alice.apiKey}    (tenant ${alice.tenantId}, user ${alice.id})
  Other tenant   Authorization: Bearer ${gina.apiKey}   (tenant ${gina.tenantId}, user ${gina.id})
  Instances      ${urls.join('  ')}
  Readiness      ${urls.map((url) => `${url}/health/ready`).join('  ')}
  Redis          ${env.REDIS_URL}
  Processes      launcher ${process.pid}, redis-server ${redis.pid}, instances ${pids}
  Long-running   helpdesk_export_tickets runs as an MCP task: start it on one instance,
                 poll it on the other.
  Failover       kill -9 an instance: the proxy skips it and the launcher starts it again.
`);
}

main().catch((error: unknown) => {
  console.error('[cluster] could not start:', error);
  void stop(1);
});
