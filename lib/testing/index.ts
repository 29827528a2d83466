export { bindInstances } from './bind-instances.js';
export { connectMcpClient } from './connect-client.js';
export type { ConnectMcpClientOptions, McpTestProtocolVersion } from './connect-client.js';
export { createInMemoryFetch } from './in-memory-fetch.js';
export type {
  InMemoryFetch,
  InMemoryFetchOptions,
  InMemoryTarget,
  NestApplicationLike,
} from './in-memory-fetch.js';
export { createTestIssuer } from './test-issuer.js';
export type { TestIssuer, TestIssuerOptions, TestPrincipalClaims } from './test-issuer.js';
