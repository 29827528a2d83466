import type { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from '../app/app.module.js';
import { freePort } from '../ports.js';
import { HELPDESK_SCOPES } from '../helpdesk/helpdesk.scopes.js';
import { SERVICE_CLIENTS, SIGN_IN_USERS } from './accounts.js';
import { startAuthorizationServer, type AuthorizationServer } from './authorization-server.js';

/** Options of {@link startOAuthSample}. */
export interface OAuthSampleOptions {
  /** The SQLite file; created and seeded when missing. */
  databaseFile: string;
  /** The application's port (MCP and REST); 0 picks a free one. @default 3000 */
  port?: number;
  /** The authorization server's port; 0 picks a free one. @default 3001 */
  authPort?: number;
  /** Log one line per tool call. */
  logCalls?: boolean;
  /** The application's logger (`false` for none). @default Nest's logger */
  logger?: LoggerService | false;
}

/** The running sample: the application and its authorization server. */
export interface OAuthSample {
  readonly app: NestExpressApplication;
  readonly authorizationServer: AuthorizationServer;
  /** `http://127.0.0.1:<port>`, the application. */
  readonly url: string;
  /** The MCP endpoint's URL: the resource its access tokens must be issued for. */
  readonly mcpUrl: string;
  /** Closes the application (running calls finish first), then the authorization server. */
  close(): Promise<void>;
}

const HOST = '127.0.0.1';

/**
 * Starts the help desk with MCP sign-in through OAuth: an authorization server on its own port
 * (`sample/oauth/authorization-server.ts`, with the accounts of `accounts.ts`), and the
 * application, whose MCP endpoint accepts that server's access tokens issued for it. The REST
 * routes keep their API keys.
 */
export async function startOAuthSample(options: OAuthSampleOptions): Promise<OAuthSample> {
  // The endpoint's URL is its tokens' audience: the authorization server must know it before it
  // starts, and the application needs the issuer before it starts. So the port comes first.
  const port = options.port === 0 ? await freePort() : (options.port ?? 3000);
  const url = `http://${HOST}:${port}`;
  const mcpUrl = `${url}/mcp`;
  const authorizationServer = await startAuthorizationServer({
    host: HOST,
    port: options.authPort ?? 3001,
    resources: [mcpUrl],
    scopes: HELPDESK_SCOPES,
    clients: SERVICE_CLIENTS.map(({ clientId, clientSecret }) => ({ clientId, clientSecret })),
    users: SIGN_IN_USERS,
  });
  let app: NestExpressApplication | undefined;
  try {
    app = await NestFactory.create<NestExpressApplication>(
      AppModule.forRoot({
        databaseFile: options.databaseFile,
        logCalls: options.logCalls,
        oauth: { issuer: authorizationServer.issuer, resource: mcpUrl },
      }),
      {
        // Keep-alive sockets of MCP clients must not hold the shutdown up.
        forceCloseConnections: true,
        ...(options.logger !== undefined && { logger: options.logger }),
      },
    );
    await app.listen(port, HOST);
  } catch (error) {
    await app?.close().catch(() => undefined);
    await authorizationServer.close();
    throw error;
  }
  const started = app;
  return {
    app: started,
    authorizationServer,
    url,
    mcpUrl,
    async close() {
      try {
        await started.close();
      } finally {
        await authorizationServer.close();
      }
    },
  };
}
