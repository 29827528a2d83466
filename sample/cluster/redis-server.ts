import { spawn, type ChildProcess } from 'node:child_process';

const READY = 'Ready to accept connections';

/**
 * Runs `redis-server` on a loopback port with nothing persisted. Resolves once the server says it
 * accepts connections (its own log line: never another process that happens to listen on the
 * port); rejects with its last words if it exits first, or with how to install it if it is not
 * there.
 *
 * @example
 * const redis = await launchRedisServer(await freePort());
 * // ...
 * redis.kill('SIGTERM');
 */
export async function launchRedisServer(
  port: number,
  binary = 'redis-server',
): Promise<ChildProcess> {
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let said = '';
  await new Promise<void>((resolve, reject) => {
    const exited = (code: number | null) => {
      const last = said.trim().split('\n').slice(-2).join(' / ');
      reject(
        new Error(`redis-server on port ${port} exited (${code}) before it was ready: ${last}`),
      );
    };
    child.stdout!.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      if (said.includes(READY)) {
        child.off('exit', exited);
        resolve();
      }
    });
    child.once('exit', exited);
    child.once('error', (error) =>
      reject(
        new Error(
          `${binary} could not start (${error.message}). Install redis-server ` +
            '(Debian, Ubuntu: apt-get install -y redis-server; macOS: brew install redis).',
        ),
      ),
    );
  });
  // It keeps logging; what it says from now on is read and dropped.
  child.stdout!.removeAllListeners('data').resume();
  return child;
}
