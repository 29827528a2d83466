/**
 * What a REST route of the application answers when a tool call it makes fails, and what the
 * server logs: a `ToolError` answers its own status with the failure envelope, with no
 * configuration; a name the application's code misspelt (a `NOT_FOUND` marked a programming
 * error) is a 500 that lists nothing, with the filter or without, and its suggestions are
 * logged; an unexpected failure is logged once, without the arguments or the context.
 */
import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import {
  Catch,
  Controller,
  Get,
  Inject,
  Param,
  UseFilters,
  type ArgumentsHost,
  type ExceptionFilter,
} from '@nestjs/common';
import { z } from 'zod';
import {
  defineRuntimeTool,
  ToolError,
  ToolInvoker,
  ToolsModule,
  type ToolsModuleOptions,
} from '../../lib/index.js';
import { ADAPTERS, TestApps, type AdapterName } from '../fixtures/apps.js';
import { RecordingLogger } from '../fixtures/logs.js';

const SECRET = 'card 4242-4242';

const getInvoice = defineRuntimeTool({
  identity: { serviceName: 'billing', action: 'get_invoice', method: 'GET' },
  description: 'Fetch an invoice',
  input: z.object({ id: z.string().startsWith('inv_') }),
  handler: ({ input }) => {
    if (input.id === 'inv_1') return { id: 'inv_1', amount: 120 };
    throw new ToolError('NOT_FOUND', { message: `No invoice ${input.id}.`, hint: 'List first.' });
  },
});

const charge = defineRuntimeTool({
  identity: { serviceName: 'billing', action: 'charge', method: 'POST' },
  description: 'Charge a card',
  input: z.object({ card: z.string() }),
  handler: () => {
    throw new Error('gateway at 10.0.0.4 refused');
  },
});

@Controller()
class BillingController {
  constructor(@Inject(ToolInvoker) private readonly tools: ToolInvoker) {}

  @Get('invoices/:id')
  get(@Param('id') id: string) {
    return this.tools.invokeOrThrow('billing_get_invoice', { id }, { transport: 'AGENT' });
  }

  @Get('typo')
  typo() {
    return this.tools.invokeOrThrow('billing_get_invoce', { id: 'inv_1' }, { transport: 'AGENT' });
  }

  @Get('forwarded/:tool')
  forwarded(@Param('tool') tool: string) {
    return this.tools.invokeOrThrow(tool, {}, { transport: 'AGENT', source: 'rest' });
  }

  @Get('charge')
  charge() {
    return this.tools.invokeOrThrow('billing_charge', { card: SECRET }, { transport: 'AGENT' });
  }
}

@Catch(ToolError)
class TeapotFilter implements ExceptionFilter<ToolError> {
  catch(error: ToolError, host: ArgumentsHost) {
    host
      .switchToHttp()
      .getResponse<{ status(code: number): { send(body: unknown): void } }>()
      .status(418)
      .send({ teapot: error.code });
  }
}

@Controller('own')
@UseFilters(TeapotFilter)
class OwnFilterController {
  constructor(@Inject(ToolInvoker) private readonly tools: ToolInvoker) {}

  @Get('invoices/:id')
  get(@Param('id') id: string) {
    return this.tools.invokeOrThrow('billing_get_invoice', { id }, { transport: 'AGENT' });
  }
}

interface Setup {
  options?: Omit<ToolsModuleOptions, 'registry'>;
  toolErrorFilter?: boolean;
}

async function serve(apps: TestApps, adapter: AdapterName, setup: Setup = {}) {
  const logger = new RecordingLogger();
  const { url } = await apps.listen(
    {
      imports: [
        ToolsModule.forRoot({
          registry: [getInvoice, charge],
          context: (request: { headers: Record<string, unknown> }) => ({
            tenantId: request.headers['x-tenant-id'],
          }),
          mcp: false,
          ...(setup.toolErrorFilter !== undefined && { toolErrorFilter: setup.toolErrorFilter }),
          ...setup.options,
        }),
      ],
      controllers: [BillingController, OwnFilterController],
    },
    adapter,
    { logger },
  );
  const get = async (path: string) => {
    const response = await fetch(`${url}${path}`, { headers: { 'x-tenant-id': 'acme-secret' } });
    return { status: response.status, body: await response.json() };
  };
  return { get, logger };
}

describe.each(ADAPTERS)('a tool failure on a REST route (%s)', (adapter) => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  it('answers a ToolError with its status and the failure envelope, and logs nothing', async () => {
    const { get, logger } = await serve(apps, adapter);
    expect(await get('/invoices/inv_1')).toEqual({
      status: 200,
      body: { id: 'inv_1', amount: 120 },
    });
    expect(await get('/invoices/inv_9')).toEqual({
      status: 404,
      body: {
        error: 'NOT_FOUND',
        message: 'No invoice inv_9.',
        retryable: false,
        hint: 'List first.',
      },
    });
    const invalid = await get('/invoices/nine');
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ error: 'VALIDATION_ERROR', retryable: false });
    expect(logger.lines.filter(({ level }) => level === 'error' || level === 'warn')).toEqual([]);
  });

  it("leaves a ToolError to the controller's own filter", async () => {
    const { get } = await serve(apps, adapter);
    expect(await get('/own/invoices/inv_9')).toEqual({
      status: 418,
      body: { teapot: 'NOT_FOUND' },
    });
  });

  it('answers as Nest does without a filter with toolErrorFilter: false', async () => {
    const { get } = await serve(apps, adapter, { toolErrorFilter: false });
    expect(await get('/invoices/inv_9')).toEqual({
      status: 500,
      body: { statusCode: 500, message: 'Internal server error' },
    });
  });

  it("answers a name misspelt in the application's code with a 500 that lists nothing, and logs the suggestions", async () => {
    const { get, logger } = await serve(apps, adapter);
    expect(await get('/typo')).toEqual({
      status: 500,
      body: { error: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', retryable: false },
    });
    const logged = logger.about('Unknown tool "billing_get_invoce"');
    expect(logged).toHaveLength(1);
    expect(logged[0].level).toBe('error');
    expect(String(logged[0].args[0])).toContain('Did you mean "billing_get_invoice"');
  });

  it('answers it with a 500 that lists nothing without the filter too (toolErrorFilter: false)', async () => {
    const { get } = await serve(apps, adapter, { toolErrorFilter: false });
    expect(await get('/typo')).toEqual({
      status: 500,
      body: { statusCode: 500, message: 'Internal server error' },
    });
  });

  it('answers a name a caller chose (source: rest) with 404 and the closest names', async () => {
    const { get } = await serve(apps, adapter);
    expect(await get('/forwarded/billing_chrage')).toEqual({
      status: 404,
      body: {
        error: 'NOT_FOUND',
        message: 'Unknown tool "billing_chrage". Did you mean "billing_charge"?',
        retryable: false,
        details: { name: 'billing_chrage', transport: 'AGENT' },
      },
    });
  });

  it('logs an unexpected failure once through Nest, with the tool, the call and the stack, without the arguments or the context', async () => {
    const { get, logger } = await serve(apps, adapter);
    expect(await get('/charge')).toEqual({
      status: 500,
      body: { error: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', retryable: false },
    });
    const logged = logger.about('billing_charge');
    expect(logged).toEqual([
      {
        level: 'error',
        args: [
          expect.stringMatching(
            /^\[toolwright\] Tool "billing_charge" failed unexpectedly \(call [0-9a-f]{12}-[0-9a-z]+, AGENT\/internal\):$/,
          ),
          expect.stringMatching(/^Error: gateway at 10\.0\.0\.4 refused\n\s+at /),
          'ToolsModule',
        ],
      },
    ]);
    expect(JSON.stringify(logger.lines)).not.toMatch(/4242|acme-secret/);
  });

  it.each([
    ['warn', 'warn'],
    ['debug', 'debug'],
  ] as const)('logs it at %s with logUnexpectedErrors', async (level, nestLevel) => {
    const { get, logger } = await serve(apps, adapter, { options: { logUnexpectedErrors: level } });
    expect((await get('/charge')).status).toBe(500);
    const logged = logger.about('billing_charge');
    expect(logged.map((line) => line.level)).toEqual([nestLevel]);
    expect(String(logged[0].args[0])).toMatch(
      /failed unexpectedly .*\nError: gateway at 10\.0\.0\.4 refused\n\s+at /s,
    );
  });

  it('logs nothing with logUnexpectedErrors: false', async () => {
    const { get, logger } = await serve(apps, adapter, { options: { logUnexpectedErrors: false } });
    expect((await get('/charge')).status).toBe(500);
    expect(logger.about('billing_charge')).toEqual([]);
  });
});
