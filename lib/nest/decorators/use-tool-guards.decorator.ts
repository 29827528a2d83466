import type { ToolGuard } from '../../core/hooks.js';
import type { Class } from '../../core/types.js';
import { assertLegacyDecorator, draftOf, publish } from './tool-class.draft.js';

/**
 * Guards for the tools of a class (on the class) or for one tool (on a `@Tool` method). Each is
 * a guard object or an injectable class implementing `ToolGuard`; class guards run first.
 *
 * @example
 * @UseToolGuards(AdminOnlyGuard)
 * @Tool({
 *   action: 'purge',
 *   method: 'DELETE',
 *   description: 'Delete every invoice',
 *   input: z.object({}),
 * })
 * purge() {
 *   return { purged: true };
 * }
 */
export function UseToolGuards(...guards: (ToolGuard | Class<ToolGuard>)[]) {
  return (target: object, key?: string | symbol): void => {
    assertLegacyDecorator('UseToolGuards', key);
    if (key === undefined) {
      draftOf(target as object).classGuards.push(...guards);
      publish(target as object);
      return;
    }
    const draft = draftOf(target.constructor);
    const list = draft.methodGuards.get(String(key)) ?? [];
    list.push(...guards);
    draft.methodGuards.set(String(key), list);
  };
}
