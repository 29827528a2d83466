/**
 * Resource templates read over MCP, with the official clients of both generations against
 * `createMcpHttpHandler`: rekog's catch-all `{path*}` serves a URI of several segments, and the
 * handler gets its variables percent-decoded (`Jo%C3%A3o` is `João`), with query parameters read
 * by name; a malformed escape is a URI nothing serves.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { createToolInvoker, defineResourceTemplate } from '../../lib/core/index.js';
import { createMcpHttpHandler } from '../../lib/mcp/index.js';
import { connectClient, GENERATIONS, type Generation } from './support.js';

/** The variables each handler received, in order. */
const received: Array<Record<string, unknown>> = [];

function operations() {
  return [
    defineResourceTemplate({
      uriTemplate: 'docs://{path*}',
      name: 'doc',
      description: 'A page of the handbook, at any depth',
      variables: z.object({ path: z.string() }),
      read: ({ input }) => {
        received.push(input);
        return `page ${input.path}`;
      },
    }),
    defineResourceTemplate({
      uriTemplate: 'people://{name}{?lang}',
      name: 'person',
      description: 'A member card',
      variables: z.object({ name: z.string(), lang: z.string().optional() }),
      read: ({ input }) => {
        received.push(input);
        return `card of ${input.name}${input.lang === undefined ? '' : ` (${input.lang})`}`;
      },
    }),
  ];
}

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer(createMcpHttpHandler(createToolInvoker(operations())));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  await new Promise((done) => server.close(done));
});

async function rawClient(generation: Generation) {
  return (await connectClient(generation, url)).raw;
}

describe.each(GENERATIONS)('resource templates read with the %s client', (generation) => {
  it('docs://{path*} read as docs://a/b/c gives the handler path "a/b/c"', async () => {
    const client = await rawClient(generation);
    received.length = 0;
    try {
      expect((await client.readResource({ uri: 'docs://a/b/c' })).contents).toEqual([
        { uri: 'docs://a/b/c', text: 'page a/b/c' },
      ]);
      expect((await client.readResource({ uri: 'docs://readme.md' })).contents).toEqual([
        { uri: 'docs://readme.md', text: 'page readme.md' },
      ]);
      expect(received).toEqual([{ path: 'a/b/c' }, { path: 'readme.md' }]);
    } finally {
      await client.close();
    }
  });

  it('a {name} read as Jo%C3%A3o gives the handler "João"; the query is read by name', async () => {
    const client = await rawClient(generation);
    received.length = 0;
    try {
      expect((await client.readResource({ uri: 'people://Jo%C3%A3o' })).contents).toEqual([
        { uri: 'people://Jo%C3%A3o', text: 'card of João' },
      ]);
      const withQuery = 'people://Jo%C3%A3o?utm=x&lang=pt%2DBR';
      expect((await client.readResource({ uri: withQuery })).contents).toEqual([
        { uri: withQuery, text: 'card of João (pt-BR)' },
      ]);
      // `+` is not a space: URIs are not form bodies.
      expect((await client.readResource({ uri: 'people://a+b' })).contents).toEqual([
        { uri: 'people://a+b', text: 'card of a+b' },
      ]);
      expect(received).toEqual([
        { name: 'João' },
        { name: 'João', lang: 'pt-BR' },
        { name: 'a+b' },
      ]);
    } finally {
      await client.close();
    }
  });

  it('a malformed escape is a URI nothing serves: -32602, the handler not run', async () => {
    const client = await rawClient(generation);
    received.length = 0;
    try {
      await expect(client.readResource({ uri: 'people://%E0%A4%A' })).rejects.toMatchObject({
        code: -32602,
      });
      await expect(client.readResource({ uri: 'docs://' })).rejects.toMatchObject({
        code: -32602,
      });
      expect(received).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
