/**
 * The accounts of the embedded authorization server of `npm run sample:oauth`, printed when it
 * starts. Demonstration values: never reuse them.
 */

/**
 * Confidential clients for the client credentials grant (a service calling the tools with no
 * user), each acting for one tenant of the help desk; their calls are made as the user named
 * after the client.
 */
export const SERVICE_CLIENTS = [
  { clientId: 'helpdesk-bot', clientSecret: 'hd-bot-secret-4e9a27', tenantId: 'acme' },
] as const;

/**
 * The people who may sign in in the browser (authorization code with PKCE). Each id is a user
 * of the help desk database (`database/seed.ts`): a token's subject says whose tenant and name the
 * calls use.
 */
export const SIGN_IN_USERS = [
  { id: 'alice', password: 'alice-signs-in' },
  { id: 'gina', password: 'gina-signs-in' },
] as const;
