import { request, type Agent } from 'node:http';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/**
 * One POST: on a fresh connection, for validation, or through `agent` (a keep-alive agent of
 * `bench:tasks`' drivers, whose requests depend on the answers before them).
 */
export function post(
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  timeoutMs = 10_000,
  agent: Agent | false = false,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`POST ${url} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}
