// The public surface of `toolwright` (Nest users): the core's names and the Nest layer's.
// test/unit/public-surface.spec.ts pins every exported name, so a change here is deliberate.
export * from './core/index.js';
// The injectable class is the public ToolInvoker; it implements the core interface of that name.
export * from './nest/index.js';
export { ToolInvoker } from './nest/index.js';
