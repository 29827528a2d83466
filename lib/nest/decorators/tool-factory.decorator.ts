import type { ToolClassOptions } from '../../core/tool-class.js';
import { assertLegacyDecorator, draftOf, publish } from './tool-class.draft.js';

/**
 * Marks an injectable class as a factory of tools: its `@Tool` methods become runtime tools that
 * share the service identity and the context schema. Put the class in a registry's `defaults`
 * and in a module's `providers`.
 *
 * @example
 * @ToolFactory({
 *   serviceName: 'billing',
 *   scope: 'tenant',
 *   context: z.object({ tenantId: z.string() }),
 * })
 * @Injectable()
 * export class InvoiceTools {
 *   constructor(private readonly invoices: InvoicesService) {}
 *
 *   @Tool({
 *     action: 'getInvoice',
 *     method: 'GET',
 *     description: 'Fetch one invoice',
 *     input: z.object({ id: z.string() }),
 *   })
 *   get({ input, context }: ToolCall<{ id: string }, { tenantId: string }>) {
 *     return this.invoices.find(context.tenantId, input.id);
 *   }
 * }
 */
export function ToolFactory(options: ToolClassOptions): ClassDecorator {
  return (target, ...rest: unknown[]) => {
    assertLegacyDecorator('ToolFactory', rest[0]);
    draftOf(target).factory = { ...options };
    publish(target);
  };
}
