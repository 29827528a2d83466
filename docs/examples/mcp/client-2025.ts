// A client of the 2025 revisions: the `@modelcontextprotocol/sdk` package (v1).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = new URL(process.env.MCP_URL ?? 'http://localhost:3000/mcp');
const client = new Client({ name: 'billing-script', version: '1.0.0' });
await client.connect(
  new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: 'Bearer demo-admin-key' } },
  }),
);

const { tools } = await client.listTools();
console.log(tools.map((tool) => tool.name));

const invoice = await client.callTool({ name: 'billing_get_invoice', arguments: { id: 'inv_1' } });
console.log(invoice.structuredContent); // { id: 'inv_1', amount: 120, status: 'open' }

// Progress arrives on the same request's response stream; no session is involved.
const report = await client.callTool(
  { name: 'reports_export', arguments: { pages: 3 } },
  undefined,
  { onprogress: ({ progress, total }) => console.log(`page ${progress}/${total}`) },
);
console.log(report.structuredContent);

await client.close();
