/**
 * `connectMcpClient` goes through the pipeline a request from the network goes through: the same
 * assertions, for both protocol revisions and on Express, Fastify and a core invoker, run over
 * real HTTP (a server listening on 127.0.0.1) and in memory (no port): listing, a call with
 * progress before its result, a validation error, a question answered by the client's callback,
 * a refused Host, and sign-in (a missing token refused, a test issuer's principal in the call).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import {
  connectMcpClient,
  createInMemoryFetch,
  createTestIssuer,
  type McpTestProtocolVersion,
} from '../../lib/testing/index.js';
import {
  INITIALIZE,
  RAW_HEADERS,
  TARGETS,
  connectOverHttp,
  rawInitializeOverHttp,
  targetApp,
  type ClientSettings,
  type RawAnswer,
  type TargetApp,
} from './fixtures.js';

const WAYS = ['http', 'memory'] as const;
const VERSIONS: McpTestProtocolVersion[] = ['2026-07-28', '2025-11-25'];
const RESOURCE = 'https://api.example.com/mcp';

/** One way to reach an application: a connected client, and a raw `initialize` with a Host. */
interface Way {
  connect(settings: ClientSettings): Promise<Client>;
  initialize(host: string, headers?: Record<string, string>): Promise<RawAnswer>;
}

/** Reaches `app` over real HTTP (after it listens) or in memory. */
async function wayTo(way: (typeof WAYS)[number], app: TargetApp): Promise<Way> {
  if (way === 'http') {
    const base = await app.listen();
    return {
      connect: (settings) => connectOverHttp(`${base}/mcp`, settings),
      initialize: (host, headers) => rawInitializeOverHttp(`${base}/mcp`, host, headers),
    };
  }
  const fetch = createInMemoryFetch(app.target, { mcp: app.mcp });
  return {
    connect: (settings) => connectMcpClient(app.target, { ...settings, mcp: app.mcp }),
    initialize: async (host, headers = {}) => {
      const answer = await fetch(`http://${host}/mcp`, {
        method: 'POST',
        headers: { ...RAW_HEADERS, ...headers },
        body: JSON.stringify(INITIALIZE),
      });
      await answer.body?.cancel();
      return { status: answer.status, challenge: answer.headers.get('www-authenticate') };
    },
  };
}

const text = (result: unknown) =>
  JSON.parse((result as { content: Array<{ text: string }> }).content[0].text);

describe.each(TARGETS.flatMap((target) => WAYS.map((way) => [target, way] as const)))(
  '%s, %s',
  (targetName, way) => {
    let app: TargetApp;
    let reach: Way;
    beforeAll(async () => {
      app = await targetApp(targetName);
      reach = await wayTo(way, app);
    });
    afterAll(() => app?.close());

    describe.each(VERSIONS)('protocol %s', (protocolVersion) => {
      let client: Client;
      const asked: string[] = [];
      beforeAll(async () => {
        client = await reach.connect({
          protocolVersion,
          headers: { 'x-tenant-id': 'acme', 'x-user': 'ada' },
          elicitation: (params) => {
            asked.push(params.message);
            return { action: 'accept', content: { confirm: true } };
          },
        });
      });
      afterAll(() => client?.close());

      it('speaks the revision asked for', () => {
        expect(client.getNegotiatedProtocolVersion()).toBe(protocolVersion);
      });

      it('lists the tools the caller may call (not the scoped one)', async () => {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name).sort()).toEqual([
          'desk_close',
          'desk_whoami',
          'desk_work',
        ]);
      });

      it('calls a tool with the context the headers give', async () => {
        const result = await client.callTool({ name: 'desk_whoami', arguments: { text: 'hi' } });
        expect(text(result)).toEqual({
          text: 'hi',
          tenantId: 'acme',
          subject: null,
          scopes: null,
        });
      });

      it('streams progress notifications before the result', async () => {
        const seen: string[] = [];
        const result = await client.callTool(
          { name: 'desk_work', arguments: { steps: 3 } },
          {
            onprogress: (progress) => seen.push(`progress ${progress.progress}/${progress.total}`),
          },
        );
        seen.push('result');
        expect(text(result)).toEqual({ steps: 3 });
        expect(seen).toEqual(['progress 1/3', 'progress 2/3', 'progress 3/3', 'result']);
      });

      it('answers invalid arguments with a validation error', async () => {
        const result = await client.callTool({ name: 'desk_whoami', arguments: { text: '' } });
        expect(result.isError).toBe(true);
        expect(text(result)).toMatchObject({ error: 'VALIDATION_ERROR' });
      });

      it('asks through the elicitation callback and runs on the answer', async () => {
        const before = asked.length;
        const result = await client.callTool({ name: 'desk_close', arguments: { id: 't-1' } });
        expect(text(result)).toEqual({ id: 't-1', closed: true });
        expect(asked.slice(before)).toEqual(['Close t-1?']);
      });
    });

    it('refuses a Host the endpoint does not allow, and takes localhost', async () => {
      expect((await reach.initialize('evil.example')).status).toBe(403);
      expect((await reach.initialize('localhost')).status).toBe(200);
    });
  },
);

describe.each(TARGETS.flatMap((target) => WAYS.map((way) => [target, way] as const)))(
  'signed in: %s, %s',
  (targetName, way) => {
    const issuer = createTestIssuer({ resource: RESOURCE });
    let app: TargetApp;
    let reach: Way;
    beforeAll(async () => {
      app = await targetApp(targetName, issuer.auth());
      reach = await wayTo(way, app);
    });
    afterAll(() => app?.close());

    it('refuses a request without a token with the challenge', async () => {
      const answer = await reach.initialize('localhost');
      expect(answer.status).toBe(401);
      expect(answer.challenge).toContain('resource_metadata=');
    });

    it('refuses a token it did not issue', async () => {
      const other = createTestIssuer({ resource: RESOURCE }).token({ subject: 'mallory' });
      const answer = await reach.initialize('localhost', { authorization: `Bearer ${other}` });
      expect(answer.status).toBe(401);
      expect(answer.challenge).toContain('invalid_token');
    });

    it.each(VERSIONS)('calls as the principal of the token (%s)', async (protocolVersion) => {
      const token = issuer.token({ subject: 'ada', scopes: ['ledger:read'] });
      const client = await reach.connect({
        protocolVersion,
        headers: { authorization: `Bearer ${token}` },
      });
      try {
        const result = await client.callTool({ name: 'desk_whoami', arguments: { text: 'hi' } });
        expect(text(result)).toMatchObject({ subject: 'ada', scopes: ['ledger:read'] });
        // A tool whose scopes the token lacks is hidden and its call stepped up (403).
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).not.toContain('desk_export');
        await expect(client.callTool({ name: 'desk_export', arguments: {} })).rejects.toThrow();
      } finally {
        await client.close();
      }
    });
  },
);
