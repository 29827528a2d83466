/**
 * The help desk sample with MCP sign-in through OAuth: `npm run sample:oauth` builds it and starts
 * an authorization server on AUTH_PORT (default 3001) and the application on PORT (default 3000).
 * MCP clients sign in there (client credentials, or a browser sign-in with dynamic client
 * registration, as the MCP Inspector does); the REST routes keep their API keys.
 */
import 'reflect-metadata';
import { resolve } from 'node:path';
import { SEEDED_USERS } from './database/seed.js';
import { HELPDESK_SCOPES, TICKETS_READ, TICKETS_WRITE } from './helpdesk/helpdesk.scopes.js';
import { SERVICE_CLIENTS, SIGN_IN_USERS } from './oauth/accounts.js';
import { startOAuthSample } from './oauth/oauth-sample.js';

const databaseFile = resolve(process.env.HELPDESK_DB ?? 'sample/data/helpdesk.db');

const sample = await startOAuthSample({
  databaseFile,
  port: Number(process.env.PORT ?? 3000),
  authPort: Number(process.env.AUTH_PORT ?? 3001),
  logCalls: true,
});
sample.app.enableShutdownHooks();

const { issuer } = sample.authorizationServer;
const { url, mcpUrl } = sample;
const [bot] = SERVICE_CLIENTS;
const [alice, gina] = SIGN_IN_USERS;
const tenantOf = (id: string) => SEEDED_USERS.find((user) => user.id === id)?.tenantId;
const mcpCurl = (body: string) =>
  `curl -s ${mcpUrl} -H "Authorization: Bearer $TOKEN" \\
        -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \\
        -d '${body}'`;

console.log(`
Help desk sample is running; MCP clients sign in with OAuth.

  MCP endpoint     ${mcpUrl}   (access tokens must be issued for this resource)
  Issuer           ${issuer}       (the embedded authorization server)
  Scopes           ${TICKETS_READ} (the tools that read)   ${TICKETS_WRITE} (the tools that change tickets)

  Service client   ${bot.clientId} / ${bot.clientSecret}   (client credentials; acts for tenant ${bot.tenantId})
    A token for the MCP endpoint, with ${TICKETS_READ} only:
      TOKEN=$(curl -s -u ${bot.clientId}:${bot.clientSecret} ${issuer}/token \\
        -d grant_type=client_credentials -d resource=${mcpUrl} -d scope=${TICKETS_READ} \\
        | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).access_token')
    The tools it may use, then a call:
      ${mcpCurl('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')}
      ${mcpCurl('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"helpdesk_list_tickets","arguments":{}}}')}
    With -d 'scope=${HELPDESK_SCOPES.join(' ')}' the tools that change tickets are listed too;
    with ${TICKETS_READ} alone, calling one answers 403 insufficient_scope.

  Browser sign-in  ${alice.id} / ${alice.password} (tenant ${tenantOf(alice.id)})   ${gina.id} / ${gina.password} (tenant ${tenantOf(gina.id)})
  MCP Inspector    npx @modelcontextprotocol/inspector, transport "Streamable HTTP", no header,
                   URL ${mcpUrl} (127.0.0.1, as the token's resource; not localhost).
                   Connecting registers the Inspector (dynamic client registration) and opens
                   the sign-in page; it then lists only the tools its granted scopes allow.
  REST (API keys)  curl -H 'Authorization: Bearer ${SEEDED_USERS[0].apiKey}' ${url}/api/tickets
  Database         ${databaseFile}
`);
