import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A round-robin reverse proxy to instances on 127.0.0.1 ports, as a load balancer without
 * sticky sessions sends requests: each to the next instance in turn. Counts what each served.
 */
export class RoundRobinProxy {
  readonly served: number[];
  private next = 0;
  private readonly server: Server;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 32 });

  constructor(private readonly ports: readonly number[]) {
    this.served = ports.map(() => 0);
    this.server = createServer((req, res) => this.forward(req, res));
  }

  /** Listens on `port` (0: a free one) of 127.0.0.1; resolves to its base URL. */
  async listen(port = 0): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.agent.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const index = this.next++ % this.ports.length;
    this.served[index]++;
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: this.ports[index],
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent: this.agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    // An instance that is down: the client gets a 502, as from any balancer.
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
    // A client that goes away takes its upstream request with it.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
  }
}
