import {
  Client,
  StreamableHTTPClientTransport,
  type ClientCapabilities,
  type ElicitRequestParams,
  type ElicitResult,
  type Implementation,
} from '@modelcontextprotocol/client';
import {
  createInMemoryFetch,
  type InMemoryFetchOptions,
  type InMemoryTarget,
} from './in-memory-fetch.js';

/** The protocol revisions a test client speaks. */
export type McpTestProtocolVersion = '2026-07-28' | '2025-11-25';

/** Options of {@link connectMcpClient}. */
export interface ConnectMcpClientOptions extends InMemoryFetchOptions {
  /**
   * The revision the client speaks: `2026-07-28` (pinned: the server must offer it) or
   * `2025-11-25` (the `initialize` handshake). @default '2026-07-28'
   */
  protocolVersion?: McpTestProtocolVersion;
  /**
   * The endpoint's URL: its path is the MCP route's, its host the requests' `Host` header.
   * @default 'http://localhost/mcp'
   */
  url?: string | URL;
  /**
   * Headers sent with every request: what the application reads to know the caller (an API
   * key, a tenant header, `authorization: Bearer …`).
   */
  headers?: Record<string, string>;
  /** The client's name and version. @default { name: 'toolwright-testing', version: '1.0.0' } */
  clientInfo?: Implementation;
  /** The capabilities the client declares (`tasks`, `sampling`, …), beside `elicitation`. */
  capabilities?: ClientCapabilities;
  /**
   * Answers the questions a tool asks (elicitation). Given, the client declares the
   * `elicitation` capability (form mode) unless `capabilities` declares it; on 2026-07-28 the
   * client answers the call's `input_required` rounds with it, on 2025-11-25 the server's
   * `elicitation/create` requests.
   */
  elicitation?: (params: ElicitRequestParams) => ElicitResult | Promise<ElicitResult>;
}

/**
 * Connects the official MCP client (`@modelcontextprotocol/client`, which the test installs) to
 * an application in memory: no port and no network socket, and every request through the
 * application's whole HTTP pipeline (see {@link createInMemoryFetch}). Resolves once connected;
 * close the client when the test is done.
 *
 * @example
 * const client = await connectMcpClient(app, {
 *   protocolVersion: '2025-11-25',
 *   headers: { 'x-tenant-id': 'acme' },
 *   elicitation: () => ({ action: 'accept', content: { confirm: true } }),
 * });
 * const { tools } = await client.listTools();
 * await client.close();
 */
export async function connectMcpClient(
  target: InMemoryTarget,
  options: ConnectMcpClientOptions = {},
): Promise<Client> {
  const { elicitation } = options;
  const capabilities: ClientCapabilities = {
    ...(elicitation && { elicitation: { form: {} } }),
    ...options.capabilities,
  };
  const client = new Client(
    options.clientInfo ?? { name: 'toolwright-testing', version: '1.0.0' },
    {
      capabilities,
      ...((options.protocolVersion ?? '2026-07-28') === '2026-07-28' && {
        versionNegotiation: { mode: { pin: '2026-07-28' } },
      }),
    },
  );
  if (elicitation) {
    client.setRequestHandler('elicitation/create', (request) => elicitation(request.params));
  }
  const transport = new StreamableHTTPClientTransport(
    new URL(options.url ?? 'http://localhost/mcp'),
    {
      fetch: createInMemoryFetch(target, options),
      ...(options.headers && { requestInit: { headers: options.headers } }),
    },
  );
  await client.connect(transport);
  return client;
}
