import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Test, type TestingModule } from '@nestjs/testing';
import { ToolInvoker, ToolRequestContext, ToolsModule } from 'toolwright';
import { InvoiceTools } from '../../getting-started/invoice.tools.js';
import { InvoicesService, type Invoice } from '../../getting-started/invoices.service.js';

describe('InvoiceTools in a testing module', () => {
  const invoice: Invoice = { id: 'inv_9', tenantId: 'acme', amount: 5, status: 'open' };
  const invoices = { find: vi.fn(() => invoice), list: vi.fn(() => [invoice]) };
  let moduleRef: TestingModule;
  let tools: ToolInvoker;

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [
        ToolsModule.forRoot({
          registry: [InvoiceTools],
          context: (request) => ({ tenantId: request.headers['x-tenant-id'] }),
        }),
      ],
      providers: [InvoicesService, InvoiceTools],
    })
      .overrideProvider(InvoicesService)
      .useValue(invoices)
      .compile();
    // Tools are compiled and bound during init(); no HTTP server is needed.
    await moduleRef.init();
    tools = moduleRef.get(ToolInvoker);
  });
  afterAll(() => moduleRef.close());

  it('runs a class tool with its injected (here: faked) service', async () => {
    const result = await tools.invoke(
      'billing_get_invoice',
      { id: 'inv_9' },
      { transport: 'AGENT', context: { tenantId: 'acme' } },
    );
    expect(result).toEqual({ ok: true, data: { id: 'inv_9', amount: 5, status: 'open' } });
    expect(invoices.find).toHaveBeenCalledWith('acme', 'inv_9');
  });

  it('resolves the context from a request made current by ToolRequestContext', async () => {
    const requests = moduleRef.get(ToolRequestContext);
    const result = await requests.run({ headers: { 'x-tenant-id': 'acme' } }, () =>
      tools.invoke('billing_list_invoices', {}, { transport: 'AGENT' }),
    );
    expect(result.ok).toBe(true);
    expect(invoices.list).toHaveBeenCalledWith('acme');
  });
});
