import { readFile } from 'node:fs/promises';
import {
  createToolInvoker,
  definePrompt,
  defineResource,
  defineResourceTemplate,
} from 'toolwright';
import { z } from 'zod';

/** The same capabilities without Nest: definitions in code, in one invoker with the tools. */
export const logo = defineResource({
  uri: 'brand://logo',
  name: 'logo',
  mimeType: 'image/png',
  read: () => readFile('logo.png'), // bytes become a base64 `blob`
});

export const release = defineResourceTemplate({
  uriTemplate: 'releases://{version}/notes',
  name: 'release_notes',
  mimeType: 'text/markdown',
  variables: z.object({ version: z.string().regex(/^\d+\.\d+\.\d+$/) }),
  complete: { version: (value) => ['1.0.0', '1.1.0', '2.0.0'].filter((v) => v.startsWith(value)) },
  read: ({ input, uri }) => ({ uri, text: `# Release ${input.version}` }),
});

export const standup = definePrompt({
  name: 'standup',
  description: 'Write a stand-up update',
  args: z.object({ team: z.string() }),
  get: ({ input }) => `Write the stand-up update of team ${input.team}.`,
});

export async function example() {
  const invoker = createToolInvoker([logo, release, standup]);
  const read = await invoker.readResource('releases://2.0.0/notes', { transport: 'AGENT' });
  // { ok: true, data: { contents: [{ uri: 'releases://2.0.0/notes', mimeType: 'text/markdown', text: '# Release 2.0.0' }] } }
  const prompt = await invoker.getPrompt('standup', { team: 'desk' }, { transport: 'AGENT' });
  // { ok: true, data: { messages: [{ role: 'user', content: { type: 'text', text: 'Write the stand-up update of team desk.' } }] } }
  const versions = await invoker.complete(
    'release_notes',
    { name: 'version', value: '1.' },
    { transport: 'MCP' },
  );
  // ['1.0.0', '1.1.0']
  return { read, prompt, versions };
}
