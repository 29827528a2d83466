import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import type { Readable } from 'node:stream';

const server = {
  command: 'node',
  args: ['--import', 'tsx', 'test/fixtures/stdio-server.ts'],
  cwd: process.cwd(),
  stderr: 'pipe' as const,
};

/** Collects the child's stderr, to show when something fails. */
function collect(stream: unknown): () => string {
  const chunks: string[] = [];
  (stream as Readable | null)?.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  return () => chunks.join('');
}

describe('serveAppStdio with a 2025-era client (child process)', () => {
  let client: ClientV1;
  let stderr: () => string;
  /** Anything the client could not read as JSON-RPC on the child's stdout lands here. */
  const errors: unknown[] = [];
  /** Every message the child wrote, in the order it wrote them. */
  const received: Array<{ id?: unknown; method?: string; params?: { progressToken?: unknown } }> =
    [];

  beforeAll(async () => {
    const transport = new StdioV1(server);
    stderr = collect(transport.stderr);
    client = new ClientV1({ name: 'stdio-test', version: '1.0.0' });
    client.onerror = (error) => errors.push(error);
    await client.connect(transport);
    // This client handles a response at once but a notification a microtask later, so a progress
    // notification read in the same chunk as its response finds its handler already gone
    // (modelcontextprotocol/typescript-sdk#2580). Handing it one message per macrotask, in order,
    // is what separate reads would do.
    const deliver = transport.onmessage!;
    transport.onmessage = (message) => {
      received.push(message as (typeof received)[number]);
      setImmediate(() => deliver(message));
    };
  });
  afterAll(() => client?.close());

  it('lists the tools', async () => {
    const { tools } = await client.listTools();
    expect(tools).toEqual([
      expect.objectContaining({
        name: 'stdio_whoami',
        description: 'Report the caller context and echo the text',
        inputSchema: expect.objectContaining({ type: 'object', required: ['text'] }),
        outputSchema: expect.objectContaining({ type: 'object' }),
        annotations: { readOnlyHint: true },
      }),
    ]);
  });

  it("calls a tool with serveAppStdio's context", async () => {
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'stdio_whoami', arguments: { text: 'hi' } },
      undefined,
      {
        onprogress: (update) => progress.push(update.progress),
      },
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ text: 'hi', tenantId: 'local' });
    expect(result.content).toEqual([
      { type: 'text', text: JSON.stringify({ text: 'hi', tenantId: 'local' }) },
    ]);
    expect(progress).toEqual([1]);
    // The server wrote the progress notification before the answer to the call.
    const notification = received.findIndex(
      (message) => message.method === 'notifications/progress',
    );
    const token = received[notification]?.params?.progressToken;
    const answer = received.findIndex((message) => !message.method && message.id === token);
    expect(notification).toBeGreaterThanOrEqual(0);
    expect(answer).toBeGreaterThan(notification);
  });

  it('answers invalid input with an isError VALIDATION_ERROR envelope', async () => {
    const result = await client.callTool({ name: 'stdio_whoami', arguments: { text: 5 } });
    expect(result.isError).toBe(true);
    const content = result.content as Array<{ type: string; text: string }>;
    expect(JSON.parse(content[0].text)).toMatchObject({
      error: 'VALIDATION_ERROR',
      details: { target: 'input' },
    });
  });

  it('answers an unknown tool with -32602', async () => {
    await expect(client.callTool({ name: 'stdio_whoam', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('writes nothing but JSON-RPC to stdout (logs go to stderr)', () => {
    expect(errors).toEqual([]);
    // Nest's bootstrap logs went somewhere: to stderr, through StderrLogger.
    expect(stderr()).toMatch(/Nest/);
  });
});

/**
 * The base v2 stdio transport negotiates on a short-lived sibling process (one more tsx + Nest
 * start, seconds); a subclass negotiates in place on the one child.
 */
class InPlaceStdioV2 extends StdioV2 {}

describe('serveAppStdio with a 2026-era client (child process)', () => {
  let client: ClientV2;
  const errors: unknown[] = [];

  beforeAll(async () => {
    client = new ClientV2(
      { name: 'stdio-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.onerror = (error) => errors.push(error);
    await client.connect(new InPlaceStdioV2(server));
  });
  afterAll(() => client?.close());

  it('lists and calls on the 2026-07-28 revision', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['stdio_whoami']);
    const result = await client.callTool({ name: 'stdio_whoami', arguments: { text: 'modern' } });
    expect(result.structuredContent).toEqual({ text: 'modern', tenantId: 'local' });
    const invalid = await client.callTool({ name: 'stdio_whoami', arguments: {} });
    expect(invalid.isError).toBe(true);
    expect(errors).toEqual([]);
  });
});
