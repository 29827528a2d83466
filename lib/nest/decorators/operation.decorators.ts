import {
  promptDeclaration,
  type Completer,
  resourceDeclaration,
  resourceTemplateDeclaration,
  type PromptConfig,
  type ResourceConfig,
  type ResourceTemplateConfig,
} from '../../core/operations.js';
import type { InputValue, ToolInputSchema } from '../../core/runtime-tool.js';
import type { ToolMethodOptions } from '../../core/tool-class.js';
import { assertLegacyDecorator, draftOf } from './tool-class.draft.js';

/** Options of {@link Resource}: a resource at a fixed URI, read by the decorated method. */
export type ResourceOptions = Omit<ResourceConfig, 'read' | 'serviceName' | 'context' | 'name'> & {
  /** Defaults to the method's name. */
  name?: string;
};

/**
 * Suggestions for a variable or argument on a tool class: a function, or the name of a method of
 * the class, called on the instance the container built (so it can use injected services) with
 * the same arguments as a `Completer`.
 */
export type ClassCompleter = Completer | string;

/** Options of {@link ResourceTemplate}: resources whose URIs match an RFC 6570 template. */
export type ResourceTemplateOptions<V extends ToolInputSchema = ToolInputSchema> = Omit<
  ResourceTemplateConfig<V>,
  'read' | 'serviceName' | 'context' | 'complete' | 'name'
> & {
  /** Defaults to the method's name. */
  name?: string;
  complete?: { [K in keyof InputValue<V>]?: ClassCompleter };
};

/** Options of {@link Prompt}: a prompt whose messages the decorated method returns. */
export type PromptOptions<A extends ToolInputSchema = ToolInputSchema> = Omit<
  PromptConfig<A>,
  'get' | 'serviceName' | 'context' | 'complete' | 'name'
> & {
  /** Defaults to the method's name. */
  name?: string;
  complete?: { [K in keyof InputValue<A>]?: ClassCompleter };
};

/**
 * The decorator of one kind of operation: its options, named after the method when they leave
 * `name` out, declared (and checked) once the method is known.
 */
function operationMethod<O extends { name?: string }>(
  decorator: string,
  options: O,
  declare: (named: O & { name: string }) => ToolMethodOptions,
): MethodDecorator {
  return (target, key) => {
    assertLegacyDecorator(decorator, key);
    const named = { ...options, name: options.name ?? String(key) };
    draftOf(target.constructor).methods.set(String(key), declare(named));
  };
}

/**
 * Declares a method of a `@ToolFactory` class as a resource: clients read it at `uri`
 * (`resources/read`), in-process callers with `invoker.readResource(uri, …)`. The read runs
 * through the same pipeline as the class's tools (its context schema, guards, enhancers, hooks).
 * The method returns text, bytes, `{ text | blob, mimeType? }` or a list of them.
 *
 * @example
 * @Resource({
 *   uri: 'kb://handbook',
 *   name: 'handbook',
 *   title: 'Support handbook',
 *   mimeType: 'text/markdown',
 * })
 * handbook() {
 *   return this.articles.handbook();
 * }
 */
export function Resource(options: ResourceOptions): MethodDecorator {
  return operationMethod('Resource', options, resourceDeclaration);
}

/**
 * Declares a method of a `@ToolFactory` class as a resource template: the URIs matching
 * `uriTemplate`, their variables parsed by `variables` and handed to the method as `input`;
 * `complete` suggests variable values to clients.
 *
 * @example
 * @ResourceTemplate({
 *   uriTemplate: 'kb://articles/{slug}',
 *   name: 'kb-article',
 *   mimeType: 'text/markdown',
 *   variables: z.object({ slug: z.string() }),
 *   complete: { slug: 'slugs' }, // a method of this class
 * })
 * article({ input, context }: ResourceCall<{ slug: string }, TenantContext>) {
 *   return this.articles.body(context.tenantId, input.slug);
 * }
 *
 * slugs(value: string, { context }: { context: ToolContext }) {
 *   return this.articles.slugs(context.tenantId as string, value);
 * }
 */
export function ResourceTemplate<V extends ToolInputSchema>(
  options: ResourceTemplateOptions<V>,
): MethodDecorator {
  return operationMethod('ResourceTemplate', options, (named) =>
    resourceTemplateDeclaration(named as Parameters<typeof resourceTemplateDeclaration>[0], true),
  );
}

/**
 * Declares a method of a `@ToolFactory` class as a prompt (`prompts/get`, in-process
 * `invoker.getPrompt(name, args, …)`): `args` is a Zod object of string fields, the method
 * returns one user text, the messages, or `{ description, messages }`.
 *
 * @example
 * @Prompt({
 *   name: 'triage_ticket',
 *   description: 'Triage a ticket',
 *   args: z.object({ id: z.string() }),
 * })
 * triage({ input }: ToolCall<{ id: string }>) {
 *   return `Triage ticket ${input.id}.`;
 * }
 */
export function Prompt<A extends ToolInputSchema>(options: PromptOptions<A>): MethodDecorator {
  return operationMethod('Prompt', options, (named) =>
    promptDeclaration(named as Parameters<typeof promptDeclaration>[0], true),
  );
}
