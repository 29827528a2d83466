// A client of the 2026-07-28 revision: the `@modelcontextprotocol/client` package (SDK v2).
import {
  Client,
  LOG_LEVEL_META_KEY,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';

const url = new URL(process.env.MCP_URL ?? 'http://localhost:3000/mcp');

async function connect(key: string): Promise<Client> {
  // Pin the revision: 'auto' would fall back to the 2025 handshake instead of failing loudly.
  const client = new Client(
    { name: 'billing-script', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setNotificationHandler('notifications/message', ({ params }) =>
    console.log(`[${params.level}]`, params.data),
  );
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

// A viewer's listing has no tool that writes, and a hidden tool is refused by name too.
const viewer = await connect('demo-viewer-key');
console.log((await viewer.listTools()).tools.map((tool) => tool.name));
// [ 'billing_list_invoices', 'billing_get_invoice' ]
const refused = await viewer.callTool({ name: 'billing_void_invoice', arguments: { id: 'inv_1' } });
console.log(refused.isError, refused.content);
// true [ { type: 'text', text: '{"error":"FORBIDDEN","message":"The call to …","retryable":false}' } ]
await viewer.close();

// Progress, and log notifications (opt-in per request on this revision).
const admin = await connect('demo-admin-key');
const report = await admin.callTool(
  { name: 'reports_export', arguments: { pages: 2 }, _meta: { [LOG_LEVEL_META_KEY]: 'info' } },
  { onprogress: ({ progress, total }) => console.log(`page ${progress}/${total}`) },
);
// page 1/2, page 2/2, [info] { message: 'export finished', data: { callId: '…' } }
console.log(report.structuredContent);
await admin.close();
