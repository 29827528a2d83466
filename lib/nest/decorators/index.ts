export * from './tool-factory.decorator.js';
export * from './tool.decorator.js';
export * from './use-tool-guards.decorator.js';
export * from './operation.decorators.js';
