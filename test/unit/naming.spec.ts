import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  createToolInvoker,
  defineRuntimeTool,
  defineToolRegistry,
  ToolsConfigurationError,
} from '../../lib/core/index.js';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import {
  assertToolName,
  assertUniqueNames,
  deriveToolName,
  similarNames,
  snakeCase,
  TOOL_NAME_PATTERN,
  unknownToolMessage,
} from '../../lib/core/naming.js';
import { defineToolClass } from '../../lib/core/tool-class.js';
import { makeTool } from './support.js';

describe('snakeCase', () => {
  it.each([
    ['getInvoice', 'get_invoice'],
    ['GetInvoice', 'get_invoice'],
    ['HTTPServer', 'http_server'],
    ['getHTTPServer', 'get_http_server'],
    ['HTTPServerError', 'http_server_error'],
    ['parseJSON', 'parse_json'],
    ['v2Api', 'v2_api'],
    ['get-invoice', 'get_invoice'],
    ['Get Invoice', 'get_invoice'],
    ['  get   invoice  ', 'get_invoice'],
    ['billing.get/invoice', 'billing_get_invoice'],
    ['already_snake', 'already_snake'],
    ['--x--', 'x'],
    ['!!!', ''],
  ])('%p -> %p', (input, expected) => {
    expect(snakeCase(input)).toBe(expected);
  });
});

describe('deriveToolName', () => {
  it.each([
    ['billing', 'getInvoice', 'billing_get_invoice'],
    ['Billing', 'GetInvoice', 'billing_get_invoice'],
    ['HTTPServer', 'restart', 'http_server_restart'],
    ['user-profile', 'update email', 'user_profile_update_email'],
    ['InvoiceTools', 'voidInvoice', 'invoice_tools_void_invoice'],
  ])('%p + %p -> %p', (service, action, expected) => {
    expect(deriveToolName(service, action)).toBe(expected);
  });

  it('refuses a service name with no usable characters', () => {
    expect(() => deriveToolName('***', 'getInvoice')).toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.underivableName('***', 'getInvoice', 'the service name'),
      ),
    );
    expect(() => deriveToolName('', 'getInvoice')).toThrow(
      CORE_MESSAGES.underivableName('', 'getInvoice', 'the service name'),
    );
  });

  it('refuses an action with no usable characters', () => {
    expect(() => deriveToolName('billing', '--')).toThrow(
      CORE_MESSAGES.underivableName('billing', '--', 'the action'),
    );
  });

  it('is what defineRuntimeTool uses, and refuses an unusable service there too', () => {
    expect(makeTool({ service: 'billing', action: 'getInvoice' }).name).toBe('billing_get_invoice');
    expect(() => makeTool({ service: '$$$', action: 'x' })).toThrow(
      CORE_MESSAGES.underivableName('$$$', 'x', 'the service name'),
    );
  });
});

describe('assertToolName', () => {
  it('accepts letters, digits, underscores and hyphens up to 64 characters', () => {
    const max = 'a'.repeat(64);
    expect(() => assertToolName(max, 'origin')).not.toThrow();
    expect(() => assertToolName('Get-Invoice_2', 'origin')).not.toThrow();
    expect(() => assertToolName('x', 'origin')).not.toThrow();
    expect(TOOL_NAME_PATTERN.source).toBe('^[a-zA-Z0-9_-]{1,64}$');
  });

  it('refuses 65 characters with the length, the limit and the origin', () => {
    const name = 'a'.repeat(65);
    expect(() => assertToolName(name, 'InvoiceTools.get')).toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.toolName(name, 'InvoiceTools.get', 'is 65 characters (max 64)'),
      ),
    );
  });

  it.each(['bad/name', 'bad name', 'bad.name', 'naïve', 'tool:1', 'a\nb'])(
    'refuses %p with the pattern and the origin',
    (name) => {
      expect(() => assertToolName(name, 'pingTool')).toThrow(
        CORE_MESSAGES.toolName(name, 'pingTool', 'must match ^[a-zA-Z0-9_-]{1,64}$'),
      );
    },
  );

  it('refuses an empty name', () => {
    expect(() => assertToolName('', 'pingTool')).toThrow(
      new ToolsConfigurationError(CORE_MESSAGES.toolName('', 'pingTool', 'is empty')),
    );
  });

  it('is applied to explicit and derived names of runtime tools', () => {
    expect(() => makeTool({ name: 'bad/name' })).toThrow(
      CORE_MESSAGES.toolName(
        'bad/name',
        'runtime tool test.run',
        'must match ^[a-zA-Z0-9_-]{1,64}$',
      ),
    );
    expect(() => makeTool({ service: 'a'.repeat(40), action: 'b'.repeat(30) })).toThrow(
      CORE_MESSAGES.toolName(
        `${'a'.repeat(40)}_${'b'.repeat(30)}`,
        `runtime tool ${'a'.repeat(40)}.${'b'.repeat(30)}`,
        'is 71 characters (max 64)',
      ),
    );
  });
});

describe('assertUniqueNames', () => {
  it('accepts distinct names', () => {
    expect(() =>
      assertUniqueNames([
        { name: 'a', origin: 'A' },
        { name: 'b', origin: 'B' },
      ]),
    ).not.toThrow();
  });

  it('refuses a duplicate, naming both origins', () => {
    expect(() =>
      assertUniqueNames([
        { name: 'ping', origin: 'pingTool' },
        { name: 'other', origin: 'otherTool' },
        { name: 'ping', origin: 'HealthTools.ping' },
      ]),
    ).toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.duplicateName('ping', 'pingTool', 'HealthTools.ping'),
      ),
    );
  });

  it('uses the given label', () => {
    expect(() =>
      assertUniqueNames(
        [
          { name: 'x', origin: 'first' },
          { name: 'x', origin: 'second' },
        ],
        'hook name',
      ),
    ).toThrow(CORE_MESSAGES.duplicateName('x', 'first', 'second', 'hook name'));
  });

  it('refuses duplicate tools at composition, naming both origins', () => {
    const derived = makeTool({ service: 'health', action: 'ping' });
    const explicit = makeTool({ service: 'other', action: 'x', name: 'health_ping' });
    const expected = new ToolsConfigurationError(
      CORE_MESSAGES.duplicateName(
        'health_ping',
        'runtime tool health.ping',
        'runtime tool other.x',
      ),
    );
    expect(() => defineToolRegistry({ defaults: [derived, explicit] })).toThrow(expected);
    expect(() => createToolInvoker([derived, explicit])).toThrow(expected);
  });

  it('tells two runtime tools with the same explicit name apart by serviceName.action', () => {
    const first = makeTool({ name: 'same', service: 'billing', action: 'getInvoice' });
    const second = makeTool({ name: 'same', service: 'billing', action: 'findInvoice' });
    const expected = new ToolsConfigurationError(
      CORE_MESSAGES.duplicateName(
        'same',
        'runtime tool billing.getInvoice',
        'runtime tool billing.findInvoice',
      ),
    );
    expect(() => defineToolRegistry({ defaults: [first, second] })).toThrow(expected);
    expect(() => createToolInvoker([first, second])).toThrow(expected);
  });

  it('names a class tool by Class.method and a runtime tool by serviceName.action', () => {
    class HealthTools {
      check() {
        return true;
      }
    }
    defineToolClass(HealthTools, {
      serviceName: 'health',
      tools: [
        {
          methodName: 'check',
          action: 'check',
          method: 'GET',
          name: 'same',
          description: 'Check',
          input: z.object({}),
        },
      ],
    });
    const runtime = makeTool({ name: 'same', service: 'billing', action: 'getInvoice' });
    expect(() => createToolInvoker([HealthTools, runtime])).toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.duplicateName('same', 'HealthTools.check', 'runtime tool billing.getInvoice'),
      ),
    );
    expect(() => defineToolRegistry({ defaults: [runtime, HealthTools] })).toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.duplicateName('same', 'runtime tool billing.getInvoice', 'HealthTools.check'),
      ),
    );
  });
});

describe('similarNames', () => {
  const names = [
    'billing_get_invoice',
    'billing_list_invoices',
    'billing_void_invoice',
    'health_ping',
    'notes_add_note',
    'notes_get_note',
  ];

  it('suggests the closest name first', () => {
    expect(similarNames('billing_get_invoic', names)[0]).toBe('billing_get_invoice');
    expect(similarNames('notes_get_nte', names)[0]).toBe('notes_get_note');
  });

  it('suggests at most three names by default, and honours a limit', () => {
    const many = ['tool_a', 'tool_b', 'tool_c', 'tool_d', 'tool_e'];
    expect(similarNames('tool_x', many)).toEqual(['tool_a', 'tool_b', 'tool_c']);
    expect(similarNames('tool_x', many, 1)).toEqual(['tool_a']);
  });

  it('suggests names that contain the wanted one, case-insensitively', () => {
    expect(similarNames('PING', names)).toEqual(['health_ping']);
  });

  it('suggests nothing when nothing is close', () => {
    expect(similarNames('completely_unrelated_thing', names)).toEqual([]);
    expect(similarNames('x', [])).toEqual([]);
  });
});

describe('unknownToolMessage', () => {
  it('lists up to three quoted suggestions', () => {
    expect(unknownToolMessage('tool_x', ['tool_a', 'tool_b', 'tool_c', 'tool_d'])).toBe(
      'Unknown tool "tool_x". Did you mean "tool_a", "tool_b", "tool_c"?',
    );
    expect(unknownToolMessage('health_pin', ['health_ping', 'zzzzzzzzzzzz'])).toBe(
      'Unknown tool "health_pin". Did you mean "health_ping"?',
    );
  });

  it('says so when nothing is close', () => {
    expect(unknownToolMessage('zzzzzzzz', ['health_ping'])).toBe('Unknown tool "zzzzzzzz".');
  });

  it('says so when no tools exist', () => {
    expect(unknownToolMessage('x', [])).toBe('Unknown tool "x": no tools are available.');
  });
});

describe('naming through defineRuntimeTool', () => {
  it('prefers an explicit name over the derived one', () => {
    const tool = defineRuntimeTool({
      name: 'custom-name',
      description: 'x',
      identity: { serviceName: 'billing', action: 'getInvoice', method: 'GET' },
      input: z.object({}),
      handler: () => null,
    });
    expect(tool.name).toBe('custom-name');
  });
});
