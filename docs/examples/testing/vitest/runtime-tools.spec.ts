import { describe, expect, it } from 'vitest';
import { createToolInvoker } from 'toolwright';
import { addNote, listNotes } from '../../tools/factory.js';

// No Nest at all: the framework-free invoker runs the same pipeline as ToolsModule.
describe('notes tools', () => {
  const invoker = createToolInvoker([addNote, listNotes]);
  const as = (tenantId: string) => ({ transport: 'AGENT' as const, context: { tenantId } });

  it('stores a note per tenant', async () => {
    await invoker.invokeOrThrow('notes_add_note', { text: 'call Bo' }, as('acme'));
    const acme = await invoker.invokeOrThrow<{ notes: { text: string }[] }>(
      'notes_list_notes',
      {},
      as('acme'),
    );
    const globex = await invoker.invoke('notes_list_notes', {}, as('globex'));
    expect(acme.notes.map((note) => note.text)).toContain('call Bo');
    expect(globex).toEqual({ ok: true, data: { notes: [] } });
  });

  it('refuses an empty note before the handler runs', async () => {
    const result = await invoker.invoke('notes_add_note', { text: '' }, as('acme'));
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'VALIDATION_ERROR', details: { target: 'input' } },
    });
  });

  it('refuses a call without a tenant', async () => {
    const result = await invoker.invoke('notes_list_notes', {}, { transport: 'AGENT' });
    expect(result).toMatchObject({ ok: false, error: { details: { target: 'context' } } });
  });
});
