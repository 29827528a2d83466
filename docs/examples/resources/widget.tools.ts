import { Injectable } from '@nestjs/common';
import { Tool, ToolFactory } from 'toolwright';
import { z } from 'zod';

@ToolFactory({ serviceName: 'invoices' })
@Injectable()
export class InvoiceWidgets {
  /** An MCP Apps widget tool: `_meta` names the UI resource the host renders. */
  @Tool({
    action: 'chart',
    method: 'GET',
    description: 'Chart the invoices of the month',
    input: z.object({}),
    annotations: { title: 'Invoice chart' },
    icons: [{ src: 'https://example.com/icons/chart.svg', mimeType: 'image/svg+xml' }],
    _meta: { 'io.modelcontextprotocol/ui': { resourceUri: 'ui://invoices/chart' } },
  })
  chart() {
    return { points: [] };
  }
}
