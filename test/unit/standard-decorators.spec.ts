/**
 * toolwright's decorators are TypeScript's experimental ones, as Nest's are. Applied as standard
 * (TC39) decorators — `(value, context)` — they refuse with a clear error instead of leaving a
 * class that silently declares no tools.
 */
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { Tool, ToolFactory, ToolsConfigurationError, UseToolGuards } from '../../lib/index.js';
import { MESSAGES } from '../../lib/nest/tools.messages.js';

describe('standard decorators', () => {
  const method = function get() {};
  class Tools {}

  it.each([
    [
      '@Tool',
      () =>
        (Tool({ action: 'get', method: 'GET', description: 'Get', input: z.object({}) }) as any)(
          method,
          { kind: 'method', name: 'get' },
        ),
    ],
    ['@ToolFactory', () => (ToolFactory({ serviceName: 'x' }) as any)(Tools, { kind: 'class' })],
    [
      '@UseToolGuards',
      () => (UseToolGuards({ canActivate: () => true }) as any)(Tools, { kind: 'class' }),
    ],
  ])('%s refuses with how to compile', (name, apply) => {
    expect(apply).toThrow(new ToolsConfigurationError(MESSAGES.standardDecorator(name.slice(1))));
  });
});
