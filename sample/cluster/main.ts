/**
 * `npm run sample:cluster`: the help desk sample as it runs behind a load balancer. Starts a
 * Redis (Debian's `redis-server`, on a free loopback port, nothing persisted), two instances of
 * the sample sharing it and one `requestState` key, and a round-robin proxy on PORT (default
 * 3000) in front of them. Ctrl-C stops all of it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SEEDED_USERS } from '../database/seed.js';
import { accepting, freePort } from '../ports.js';
import { launchRedisServer } from './redis-server.js';
import { RoundRobinProxy } from './round-robin-proxy.js';

const INSTANCES = 2;
const port = Number(process.env.PORT ?? 3000);

if (spawnSync('redis-server', ['--version']).error) {
  console.error(`npm run sample:cluster needs redis-server, which is not installed.
Install it (Debian, Ubuntu: sudo apt-get install -y redis-server; macOS: brew install redis)
and run the command again. Each instance of the sample alone needs nothing more: npm run sample.`);
  process.exit(1);
}

/** Prints a child's output lines with a prefix. */
function prefixed(child: ChildProcess, label: string): ChildProcess {
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line.trim()) console.log(`[${label}] ${line}`);
    });
  }
  return child;
}

const children: ChildProcess[] = [];
/** The proxy, once it listens. */
const front: { proxy?: RoundRobinProxy } = {};
let stopping = false;

async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    await front.proxy?.close();
    // The instances first (they drain their calls), Redis last.
    for (const child of [...children].reverse()) {
      if (child.exitCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
    }
  }
  process.exit(code);
}
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));

const redisPort = await freePort();
children.push(await launchRedisServer(redisPort));

// Compiled (dist-sample/cluster/main.js) the instances run the compiled sample; from source
// (tsx sample/cluster/main.ts) they run it from source.
const here = fileURLToPath(import.meta.url);
const fromSource = here.endsWith('.ts');
const mainScript = resolve(here, '..', '..', fromSource ? 'main.ts' : 'main.js');
const env = {
  ...process.env,
  REDIS_URL: `redis://127.0.0.1:${redisPort}`,
  // One key for every instance: any of them takes the next round of a 2026-era question.
  HELPDESK_STATE_KEY: process.env.HELPDESK_STATE_KEY ?? randomBytes(32).toString('base64url'),
};
const ports: number[] = [];
// One after the other: the first creates and seeds the database the others open.
for (let i = 0; i < INSTANCES; i++) {
  const instancePort = await freePort();
  ports.push(instancePort);
  const child = spawn(process.execPath, [...(fromSource ? ['--import', 'tsx'] : []), mainScript], {
    env: { ...env, PORT: String(instancePort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(prefixed(child, `instance ${i + 1}`));
  child.once('exit', (code) => {
    if (!stopping) {
      console.error(`[cluster] instance ${i + 1} exited (${code}); stopping.`);
      void stop(1);
    }
  });
  await accepting(instancePort);
}

const proxy = (front.proxy = new RoundRobinProxy(ports));
const base = await proxy.listen(port);
const [alice, , gina] = SEEDED_USERS;
console.log(`
Help desk cluster is running: ${INSTANCES} instances behind a round-robin proxy, sharing Redis.

  MCP endpoint   ${base}/mcp    (each request to the next instance in turn)
  Credential     Authorization: Bearer ${alice.apiKey}    (tenant ${alice.tenantId}, user ${alice.id})
  Other tenant   Authorization: Bearer ${gina.apiKey}   (tenant ${gina.tenantId}, user ${gina.id})
  Instances      ${ports.map((instancePort) => `http://127.0.0.1:${instancePort}`).join('  ')}
  Redis          ${env.REDIS_URL}
  Long-running   helpdesk_export_tickets runs as an MCP task: start it on one instance,
                 poll it on the other.
`);
