import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import { AsyncSlot } from '../core/async-slot.js';

interface RequestStore {
  readonly request: unknown;
}

// Under Fastify, Nest middleware sees the raw Node request; the Fastify request (where guards
// put `user`) is linked to it by an onRequest hook so the context resolver gets the same object
// a controller would.
const NEST_REQUEST = Symbol.for('toolwright.nestRequest');

/** Links a Fastify request to its raw Node request, for {@link ToolRequestContext}. */
function linkFastifyRequest(request: { raw?: object }): void {
  if (request.raw)
    Object.defineProperty(request.raw, NEST_REQUEST, { value: request, configurable: true });
}

// One store for the process: every app and every copy of this module share it, so a request
// captured by one middleware is seen by any invoker in the same async flow.
const requests = new AsyncSlot<RequestStore>();

/**
 * The HTTP request being handled in the current async flow, captured by toolwright's middleware
 * (or by `run` from your own code). Tools read their context from it; no `Scope.REQUEST` involved.
 *
 * @example
 * // In a worker or a test: make a request-like object current for the calls inside.
 * await requestContext.run({ headers: { 'x-tenant-id': 'acme' } }, () =>
 *   tools.invoke('billing_get_invoice', { id: 'inv_1' }, { transport: 'AGENT' }),
 * );
 */
@Injectable()
export class ToolRequestContext {
  /** The current request, or `undefined` outside one. */
  get request(): unknown {
    const request = requests.get()?.request as Record<symbol, unknown> | undefined;
    return request?.[NEST_REQUEST] ?? request;
  }

  /** Runs `fn` with `request` as the current request. */
  run<T>(request: unknown, fn: () => T): T {
    return requests.run({ request }, fn);
  }
}

/**
 * Makes every request of the application current while it is handled, natively where the adapter
 * allows: on Fastify an `onRequest` hook (Nest middleware runs there through a compatibility
 * layer, `@fastify/middie`, which costs more than the whole capture), on Express a middleware at
 * the head of the application's own (before Nest's). Returns `false` for another adapter, which
 * gets {@link ToolRequestMiddleware} instead.
 */
export function captureRequests(
  adapter: { getType(): string; getInstance(): any },
  context: ToolRequestContext,
): boolean {
  const instance = adapter.getInstance();
  switch (adapter.getType()) {
    case 'fastify':
      instance.addHook('onRequest', (request: unknown, _reply: unknown, done: () => void) =>
        context.run(request, done),
      );
      return true;
    case 'express':
      instance.use((request: unknown, _response: unknown, next: () => void) =>
        context.run(request, next),
      );
      return true;
    default:
      return false;
  }
}

/**
 * With `mountMiddleware: false` the application applies {@link ToolRequestMiddleware} itself. On
 * Fastify that middleware sees the raw Node request: this links each one to the Fastify request
 * a controller (and the context resolver) gets. Nothing to do on another adapter.
 */
export function linkRequests(adapter: { getType(): string; getInstance(): any }): void {
  if (adapter.getType() !== 'fastify') return;
  adapter
    .getInstance()
    .addHook('onRequest', (request: { raw?: object }, _reply: unknown, done: () => void) => {
      linkFastifyRequest(request);
      done();
    });
}

/**
 * Captures the current HTTP request for tool calls made while handling it. `ToolsModule`
 * captures every request itself unless `mountMiddleware: false`, in which case apply this
 * middleware yourself:
 *
 * @example
 * export class AppModule implements NestModule {
 *   configure(consumer: MiddlewareConsumer) {
 *     consumer.apply(ToolRequestMiddleware).forRoutes('*path');
 *   }
 * }
 */
@Injectable()
export class ToolRequestMiddleware implements NestMiddleware {
  constructor(@Inject(ToolRequestContext) private readonly context: ToolRequestContext) {}

  use(request: unknown, _response: unknown, next: (error?: unknown) => void): void {
    this.context.run(request, next);
  }
}
