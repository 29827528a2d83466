import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** How a {@link RoundRobinProxy} checks its instances. */
export interface RoundRobinProxyOptions {
  /** The readiness route each instance serves (ToolsHealthModule). @default '/health/ready' */
  healthPath?: string;
  /** How often each instance's readiness is checked. @default 1000 */
  checkIntervalMs?: number;
  /** Called when an instance turns ready or unready, with why. */
  onChange?: (index: number, ready: boolean, why: string) => void;
}

/** A request body kept to be sent again: MCP requests are small JSON documents. */
const MAX_REPLAY_BYTES = 4 * 1024 * 1024;

/**
 * JSON-RPC methods that only read (or whose repetition changes nothing): a request that may have
 * reached an instance before it died is sent again to another one only when it is one of these.
 */
const SAFE_METHODS = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'tasks/get',
  'tasks/list',
  'tasks/result',
  'notifications/initialized',
]);

/**
 * A round-robin reverse proxy to instances on 127.0.0.1 ports, as a load balancer without
 * sticky sessions sends requests: each to the next ready instance in turn. It checks each
 * instance's readiness route every `checkIntervalMs` and skips the unready ones (one that is
 * shutting down, one whose Redis does not answer, one that is gone). A request an instance
 * refused to connect (it died) goes to the next one: it never reached the dead one. A request
 * that may have reached it is sent again only when it is safe to (a GET, or a JSON-RPC read such
 * as `tasks/get`); otherwise the client gets a 502, as from any balancer. Counts what each served.
 */
export class RoundRobinProxy {
  readonly served: number[];
  /** Whether each instance passed its last readiness check. */
  readonly ready: boolean[];
  private next = 0;
  private readonly server: Server;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 32 });
  private timer?: NodeJS.Timeout;
  private readonly healthPath: string;

  constructor(
    private readonly ports: readonly number[],
    private readonly options: RoundRobinProxyOptions = {},
  ) {
    this.served = ports.map(() => 0);
    this.ready = ports.map(() => false);
    this.healthPath = options.healthPath ?? '/health/ready';
    this.server = createServer((req, res) => void this.forward(req, res));
  }

  /**
   * Checks every instance once, then listens on `port` (0: a free one) of 127.0.0.1 and keeps
   * checking; resolves to its base URL.
   */
  async listen(port = 0): Promise<string> {
    await this.checkAll();
    this.schedule();
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
    clearTimeout(this.timer);
    this.timer = undefined;
    this.agent.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** Checks the readiness of every instance now. */
  async checkAll(): Promise<void> {
    await Promise.all(this.ports.map((_, index) => this.check(index)));
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      void this.checkAll().finally(() => {
        if (this.timer) this.schedule();
      });
    }, this.options.checkIntervalMs ?? 1000);
  }

  private async check(index: number): Promise<void> {
    const timeout = AbortSignal.timeout(this.options.checkIntervalMs ?? 1000);
    let why: string;
    try {
      const answer = await fetch(`http://127.0.0.1:${this.ports[index]}${this.healthPath}`, {
        signal: timeout,
      });
      await answer.arrayBuffer();
      why = `${this.healthPath} answered ${answer.status}`;
      this.mark(index, answer.ok, why);
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      this.mark(index, false, `${this.healthPath} failed (${cause ?? (error as Error).message})`);
    }
  }

  private mark(index: number, ready: boolean, why: string): void {
    if (this.ready[index] === ready) return;
    this.ready[index] = ready;
    this.options.onChange?.(index, ready, why);
  }

  /** The instances to try, the next ready one first; every one when none is ready. */
  private order(): number[] {
    const count = this.ports.length;
    const start = this.next++ % count;
    const all = Array.from({ length: count }, (_, i) => (start + i) % count);
    const ready = all.filter((index) => this.ready[index]);
    return ready.length > 0 ? ready : all;
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    if (body === undefined) return void res.writeHead(413).end();
    const safe = isSafe(req.method, body);
    for (const index of this.order()) {
      const outcome = await this.attempt(index, req, res, body);
      if (outcome === 'answered') return;
      // Refused: it never reached the instance. Failed: it may have; only a safe one goes again.
      this.mark(index, false, `a request failed (${outcome})`);
      if (outcome !== 'ECONNREFUSED' && !safe) break;
    }
    if (!res.headersSent) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end('No instance could answer.');
    } else res.destroy();
  }

  /** Sends the request to one instance: 'answered', or the error code of a connection that failed first. */
  private attempt(
    index: number,
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
  ): Promise<string> {
    return new Promise((resolve) => {
      const upstream = httpRequest(
        {
          host: '127.0.0.1',
          port: this.ports[index],
          method: req.method,
          path: req.url,
          headers: withLength(req.headers, body.length),
          agent: this.agent,
        },
        (answer) => {
          this.served[index]++;
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          // An instance that dies mid-answer cuts the client's answer short.
          answer.on('error', () => res.destroy());
          resolve('answered');
        },
      );
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        if (res.headersSent) {
          res.destroy();
          resolve('answered');
        } else resolve(error.code ?? error.message);
      });
      // A client that goes away takes its upstream request with it.
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      upstream.end(body);
    });
  }
}

/** The request's headers for a body sent whole: its length, never chunked. */
function withLength(headers: IncomingHttpHeaders, length: number): OutgoingHttpHeaders {
  const { 'transfer-encoding': _chunked, ...rest } = headers;
  return { ...rest, 'content-length': String(length) };
}

/** The request's body, or `undefined` when it is larger than a proxy keeps. */
async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REPLAY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Whether sending the request twice changes nothing: a GET or HEAD, or a JSON-RPC read. */
function isSafe(method: string | undefined, body: Buffer): boolean {
  if (method === 'GET' || method === 'HEAD') return true;
  try {
    const message = JSON.parse(body.toString('utf8')) as unknown;
    const messages = Array.isArray(message) ? message : [message];
    return messages.every((one) => SAFE_METHODS.has((one as { method?: string })?.method ?? ''));
  } catch {
    return false;
  }
}
