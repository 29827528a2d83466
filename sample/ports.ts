import { once } from 'node:events';
import { createServer, Socket } from 'node:net';

/** A free port of 127.0.0.1 (free when asked: bind it soon). */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether something accepts connections on a port of 127.0.0.1 now. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const answer = (connected: boolean) => {
      socket.destroy();
      resolve(connected);
    };
    socket.once('connect', () => answer(true)).once('error', () => answer(false));
    socket.connect(port, '127.0.0.1');
  });
}

/** Resolves once something accepts connections on the port; rejects after `ms`. */
export async function accepting(port: number, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await accepts(port))) {
    if (Date.now() > deadline) throw new Error(`Nothing listens on port ${port}.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
