/**
 * The resources guide's application as a reader runs it (docs/examples/resources): the module
 * provides `Articles`, MCP clients without sign-in list, complete and read the knowledge base,
 * the in-process example answers, and the application starts without a warning.
 */
import 'reflect-metadata';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppModule } from '../../docs/examples/resources/app.module.js';
import { inProcess } from '../../docs/examples/resources/in-process.js';
import { ToolInvoker } from '../../lib/index.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';

const apps = new TestApps();
afterEach(async () => {
  await apps.closeAll();
  jest.restoreAllMocks();
});

describe.each(ADAPTERS)('the resources guide’s application (%s)', (adapter) => {
  it('lists, completes and reads the articles without sign-in, and starts without a warning', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const { app, url } = await apps.listen({ imports: [AppModule] }, adapter);
    expect(warn).not.toHaveBeenCalled();

    const client = new Client({ name: 'reader', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { 'x-tenant-id': 'acme' } },
      }),
    );
    try {
      expect((await client.listResources()).resources.map(({ uri }) => uri)).toEqual([
        'kb://handbook',
      ]);
      expect(
        (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
      ).toEqual(['kb://articles/{slug}']);
      expect((await client.listPrompts()).prompts.map(({ name }) => name)).toEqual([
        'summarise_article',
      ]);
      const slugs = await client.complete({
        ref: { type: 'ref/resource', uri: 'kb://articles/{slug}' },
        argument: { name: 'slug', value: 're' },
      });
      expect(slugs.completion.values).toEqual(['reset-password', 'refunds']);
      const read = await client.readResource({ uri: 'kb://articles/reset-password' });
      expect(read.contents).toEqual([
        {
          uri: 'kb://articles/reset-password',
          mimeType: 'text/markdown',
          text: expect.stringMatching(/^# Reset a password\n/),
        },
      ]);
    } finally {
      await client.close();
    }

    const answers = await inProcess(app.get(ToolInvoker), { tenantId: 'acme' });
    expect(answers.article).toMatchObject({ ok: true });
    expect(answers.prompt).toMatchObject({ ok: true });
    expect(answers.slugs).toEqual(['reset-password', 'refunds']);
    expect(answers.visible.map(({ name }) => name)).toEqual(['summarise_article']);
  });
});
