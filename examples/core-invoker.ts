/**
 * The core invoker without Nest: declare tools, compose a registry, call them.
 * Run with `npm run example`.
 */
import { z } from 'zod';
import {
  createRuntimeToolFactory,
  createToolInvoker,
  defineRuntimeTool,
  defineToolRegistry,
  ToolError,
} from '../lib/core/index.js';

const notes = new Map<string, { id: string; tenantId: string; text: string }>();

const notesFactory = createRuntimeToolFactory({
  serviceName: 'notes',
  scope: 'tenant',
  context: z.object({ tenantId: z.string() }),
});

const addNote = notesFactory.define({
  action: 'addNote',
  method: 'POST',
  description: 'Store a note for the current tenant',
  input: z.object({ text: z.string().min(1) }),
  output: z.object({ id: z.string() }),
  handler: ({ input, context }) => {
    const id = `note_${notes.size + 1}`;
    notes.set(id, { id, tenantId: context.tenantId, text: input.text });
    return { id };
  },
});

const getNote = notesFactory.define({
  action: 'getNote',
  method: 'GET',
  description: 'Read one note of the current tenant',
  input: z.object({ id: z.string() }),
  output: z.object({ id: z.string(), text: z.string() }),
  handler: ({ input, context }) => {
    const note = notes.get(input.id);
    if (!note || note.tenantId !== context.tenantId) {
      throw new ToolError('NOT_FOUND', {
        message: `No note ${input.id}`,
        hint: 'Add a note first',
      });
    }
    return note;
  },
});

const ping = defineRuntimeTool({
  description: 'Answer pong',
  identity: { serviceName: 'health', action: 'ping', method: 'GET' },
  input: z.object({}),
  output: z.object({ pong: z.literal(true) }),
  handler: () => ({ pong: true as const }),
});

const registry = defineToolRegistry({ defaults: [addNote, getNote, ping] }).disable('health_ping');

const invoker = createToolInvoker(registry, {
  hooks: {
    afterToolCall: ({ name, call, result, durationMs }) =>
      console.log(
        `  [hook] ${name} from ${call.source}: ${result.ok ? 'ok' : result.error.code} in ${durationMs.toFixed(2)} ms`,
      ),
  },
});

const acme = { transport: 'AGENT', context: { tenantId: 'acme' } } as const;

console.log('tools on AGENT:', invoker.names('AGENT'));
const added = await invoker.invokeOrThrow<{ id: string }>(
  'notes_add_note',
  { text: 'hello' },
  acme,
);
console.log('added:', added);
console.log('read back:', await invoker.invoke('notes_get_note', { id: added.id }, acme));
console.log(
  'other tenant:',
  await invoker.invoke(
    'notes_get_note',
    { id: added.id },
    { transport: 'AGENT', context: { tenantId: 'globex' } },
  ),
);
console.log('bad input:', await invoker.invoke('notes_add_note', { text: 42 }, acme));
await invoker
  .invoke('notes_get_nte', {}, acme)
  .catch((error) => console.log('misspelt:', error.message));
