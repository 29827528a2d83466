import { createRuntimeToolFactory } from 'toolwright';
import { z } from 'zod';

const notes = new Map<string, { id: string; tenantId: string; text: string }>();

/** Identity and context schema, bound once for every tool of the factory. */
const notesTools = createRuntimeToolFactory({
  serviceName: 'notes',
  scope: 'tenant',
  context: z.object({ tenantId: z.string().min(1) }),
});

export const addNote = notesTools.define({
  action: 'addNote',
  method: 'POST',
  description: 'Store a note for the current tenant.',
  input: z.object({ text: z.string().min(1) }),
  output: z.object({ id: z.string() }),
  handler: ({ input, context }) => {
    // `context` is the parsed context: typed { tenantId: string }, undeclared keys dropped.
    const id = `note_${notes.size + 1}`;
    notes.set(id, { id, tenantId: context.tenantId, text: input.text });
    return { id };
  },
});

export const listNotes = notesTools.define({
  action: 'listNotes',
  method: 'GET',
  description: 'List the notes of the current tenant.',
  input: z.object({}),
  output: z.object({ notes: z.array(z.object({ id: z.string(), text: z.string() })) }),
  handler: ({ context }) => ({
    notes: [...notes.values()].filter((note) => note.tenantId === context.tenantId),
  }),
});
