import type { ToolMethodOptions } from '../../core/tool-class.js';
import { assertLegacyDecorator, draftOf } from './tool-class.draft.js';

/**
 * Declares a method of a `@ToolFactory` class as a tool. The method receives the call object
 * (`{ input, context, signal, reportProgress, log, call }`) and runs on the instance the Nest
 * container built. The name is `snake_case(serviceName)_snake_case(action)` unless `name` is set.
 *
 * @example
 * @Tool({
 *   action: 'voidInvoice',
 *   method: 'DELETE',
 *   description: 'Void an invoice',
 *   input: z.object({ id: z.string() }),
 * })
 * void({ input, context }: ToolCall<{ id: string }, BillingContext>) {
 *   return { voided: input.id, tenantId: context.tenantId };
 * }
 */
export function Tool(options: ToolMethodOptions): MethodDecorator {
  return (target, key) => {
    assertLegacyDecorator('Tool', key);
    draftOf(target.constructor).methods.set(String(key), { ...options });
  };
}
