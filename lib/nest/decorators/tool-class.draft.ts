import {
  defineToolClass,
  type ToolClassOptions,
  type ToolMethodOptions,
} from '../../core/tool-class.js';
import { MESSAGES, ToolsConfigurationError } from '../tools.messages.js';
import type { Class } from '../../core/types.js';

/**
 * Refuses a call by the standard (TC39) decorators, which pass `(value, context)`: toolwright's
 * decorators, like Nest's, are TypeScript's `experimentalDecorators`. Without this, a method
 * decorator would write nowhere and the class would silently declare no tools (tsx, for
 * instance, compiles a file its tsconfig does not include with the standard decorators).
 */
export function assertLegacyDecorator(name: string, second: unknown): void {
  if (typeof second === 'object' && second !== null && 'kind' in second) {
    throw new ToolsConfigurationError(MESSAGES.standardDecorator(name));
  }
}

/**
 * What the decorators of one class have said so far. Method decorators run before class
 * decorators, and class decorators in any order, so each writes here and the class metadata is
 * rewritten from the whole draft.
 */
interface ToolClassDraft {
  factory?: ToolClassOptions;
  classGuards: unknown[];
  methods: Map<string, ToolMethodOptions>;
  methodGuards: Map<string, unknown[]>;
}

const DRAFT = Symbol.for('toolwright.toolClassDraft');

export function draftOf(target: object): ToolClassDraft {
  if (!Object.hasOwn(target, DRAFT)) {
    Object.defineProperty(target, DRAFT, {
      value: {
        classGuards: [],
        methods: new Map(),
        methodGuards: new Map(),
      } satisfies ToolClassDraft,
      enumerable: false,
    });
  }
  return (target as any)[DRAFT];
}

/** The `@Tool` methods of a class that has no `@ToolFactory`, for the bootstrap check. */
export function orphanToolMethods(target: unknown): string[] {
  if (typeof target !== 'function' || !Object.hasOwn(target, DRAFT)) return [];
  const draft: ToolClassDraft = (target as any)[DRAFT];
  return draft.factory ? [] : [...draft.methods.keys()];
}

/** Rewrites the class's tool metadata from its draft, once it has `@ToolFactory`. */
export function publish(target: object): void {
  const draft = draftOf(target);
  if (!draft.factory) return;
  defineToolClass(target as Class, {
    ...draft.factory,
    guards: [...draft.classGuards],
    tools: [...draft.methods].map(([methodName, options]) => ({
      ...options,
      methodName,
      guards: [...(draft.methodGuards.get(methodName) ?? [])],
    })),
  });
}
