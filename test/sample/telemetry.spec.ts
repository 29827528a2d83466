import { afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { freePort } from '../../sample/ports.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SEEDED_USERS } from '../../sample/database/seed.js';

const [alice] = SEEDED_USERS;

/** One line the sample prints per finished span with `HELPDESK_TRACE=1` (sample/telemetry.ts). */
interface PrintedSpan {
  traceId: string;
  spanId: string;
  parentId?: string;
  kind: string;
  name: string;
  line: string;
}

const SPAN_LINE =
  /^\[otel\] ([0-9a-f]{32}) ([0-9a-f]{16}) ([0-9a-f]{16}|-) (\w+)\s+[\d.]+ms\s+(.*?)(?: [\w.]+=\S*)*$/;

function printedSpans(stderr: string): PrintedSpan[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('[otel] '))
    .map((line) => {
      const match = SPAN_LINE.exec(line);
      if (!match) throw new Error(`Unexpected span line: ${line}`);
      const [, traceId, spanId, parent, kind, name] = match;
      return {
        traceId,
        spanId,
        ...(parent !== '-' && { parentId: parent }),
        kind,
        name: name.trim(),
        line,
      };
    });
}

interface RunningSample {
  url: string;
  stderr(): string;
  /** SIGTERM, then resolves once the process has exited (its spans flushed). */
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
const dirs: string[] = [];

/** Starts the sample as `npm run sample` does (tsx instead of the build), with `env` added. */
async function startSample(env: Record<string, string>): Promise<RunningSample> {
  const dir = mkdtempSync(join(tmpdir(), 'helpdesk-otel-'));
  dirs.push(dir);
  const port = await freePort();
  // Nothing inherited that would turn telemetry on, nor jest's NODE_OPTIONS.
  const {
    NODE_OPTIONS: _jestVmModules,
    HELPDESK_TRACE: _trace,
    OTEL_EXPORTER_OTLP_ENDPOINT: _endpoint,
    ...inherited
  } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'sample/main.ts'], {
    cwd: process.cwd(),
    env: {
      ...inherited,
      ...env,
      PORT: String(port),
      HELPDESK_DB: join(dir, 'helpdesk.db'),
      NO_COLOR: '1',
    },
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) =>
    child.on('exit', () => {
      children.delete(child);
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('Help desk sample is running.')) resolve();
    });
    void exited.then(() => reject(new Error(`The sample exited before it listened:\n${stderr}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stderr: () => stderr,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

async function callGetTicket(url: string, meta?: Record<string, string>) {
  const client = new Client({ name: 'telemetry-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${alice.apiKey}` } },
    }),
  );
  const result = await client.callTool({
    name: 'helpdesk_get_ticket',
    arguments: { id: 'T-1001' },
    ...(meta && { _meta: meta }),
  });
  await client.close();
  return result;
}

describe('the help desk sample with OpenTelemetry (sample/telemetry.ts)', () => {
  afterEach(() => {
    for (const child of children) child.kill('SIGKILL');
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('prints one line per span with HELPDESK_TRACE=1: HTTP request > MCP request > tool call', async () => {
    const sample = await startSample({ HELPDESK_TRACE: '1' });
    const plain = await callGetTicket(sample.url);
    expect(plain.isError).toBeFalsy();
    // A client that sends its trace context in _meta: the MCP span continues that trace.
    const remote = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };
    await callGetTicket(sample.url, { traceparent: `00-${remote.traceId}-${remote.spanId}-01` });
    await sample.stop();

    const spans = printedSpans(sample.stderr());
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const calls = spans.filter((span) => span.name === 'execute_tool helpdesk_get_ticket');
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call.kind).toBe('INTERNAL');
      expect(call.line).toContain('toolwright.transport=MCP');
      expect(call.line).toContain('toolwright.call.depth=0');
    }

    // Without _meta: the tool call is a child of the MCP span, a child of the HTTP server span.
    const [first, second] = calls;
    const request = byId.get(first.parentId!)!;
    expect(request).toMatchObject({ name: 'tools/call helpdesk_get_ticket', kind: 'SERVER' });
    expect(request.line).toMatch(/jsonrpc\.request\.id=\d+/);
    const http = byId.get(request.parentId!)!;
    expect(http).toMatchObject({ name: 'POST', kind: 'SERVER', traceId: first.traceId });
    expect(http.parentId).toBeUndefined();
    expect(http.line).toContain('http.response.status_code=200');

    // With _meta.traceparent: the client's span is the MCP span's parent.
    const continued = byId.get(second.parentId!)!;
    expect(continued).toMatchObject({
      name: 'tools/call helpdesk_get_ticket',
      traceId: remote.traceId,
      parentId: remote.spanId,
    });
    expect(second.traceId).toBe(remote.traceId);

    // The session's other requests have spans of their own.
    expect(spans.map((span) => span.name)).toEqual(
      expect.arrayContaining(['initialize', 'notifications/initialized']),
    );
  });

  it('prints nothing without HELPDESK_TRACE or OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const sample = await startSample({});
    const result = await callGetTicket(sample.url);
    expect(result.isError).toBeFalsy();
    await sample.stop();
    expect(sample.stderr()).toBe('');
  });
});
