/**
 * The `redis-server` of `bench:tasks`: the harness's own, on a free loopback port, persisting
 * nothing (`--save '' --appendonly no`), stopped at the end of the run. Started from the harness,
 * it shares the load generator's core.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, Socket } from 'node:net';
import { BenchFailure } from './mcp.js';

/** How to install `redis-server` when it is missing. */
export const REDIS_INSTALL = 'Debian or Ubuntu: `apt-get install -y redis-server`';

export interface RedisProcess {
  /** `redis://127.0.0.1:<port>`, the servers' `REDIS_URL`. */
  readonly url: string;
  readonly pid: number;
  /** SIGTERM, then SIGKILL after 5 s; resolves once it exited. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether Redis on `port` answers a PING with PONG. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (data) => done(data.toString('latin1').startsWith('+PONG')));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}

/**
 * Starts `redis-server` and waits until it answers; `undefined` when it is not installed.
 * Throws `BenchFailure` when it exits or stays silent for 10 s.
 */
export async function startRedis(): Promise<RedisProcess | undefined> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.setEncoding('utf8').on('data', (chunk: string) => {
      output.push(chunk);
      if (output.length > 50) output.shift();
    });
  }
  const started = await new Promise<boolean>((resolve, reject) => {
    child.once('spawn', () => resolve(true));
    child.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' ? resolve(false) : reject(error),
    );
  });
  if (!started) return undefined;
  const exited = once(child, 'exit');
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 10_000;
  while (!(await pong(port))) {
    if (gone || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new BenchFailure(
        `redis-server on port ${port} ${gone ? 'exited' : 'did not answer within 10 s'}:\n${output.join('')}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid!,
    async stop() {
      if (gone) return;
      const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(kill);
    },
  };
}
