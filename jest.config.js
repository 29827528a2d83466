import { availableParallelism } from 'node:os';

/** @type {import('jest').Config} */
export default {
  // Two workers at least: Jest's default (one fewer than the cores) leaves one of two cores idle.
  maxWorkers: Math.max(2, availableParallelism() - 1),
  // Node's environment, where an uncaught exception or unhandled rejection fails the test file.
  testEnvironment: '<rootDir>/test/process-guard.environment.ts',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.spec.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    '^toolwright$': '<rootDir>/lib/index.ts',
    '^toolwright/(.*)$': '<rootDir>/lib/$1/index.ts',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  testTimeout: 30000,
};
