/**
 * Verified tokens are remembered: a client's next requests skip the verification, never past
 * the token's `exp` nor longer than `maxAgeMs`, within `maxEntries`; `tokenCache: false` verifies
 * every request.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { McpBearerAuth, type McpAuthOptions } from '../../lib/mcp/auth/bearer-auth.js';

const RESOURCE = 'https://notes.example/mcp';
const NOW = Date.UTC(2026, 11, 1, 12);

function setup(options: Partial<McpAuthOptions> = {}, expiresIn = 3600) {
  const verify = jest.fn(async (token: string): Promise<AuthInfo> => ({
    token,
    clientId: 'c',
    scopes: ['notes:read'],
    expiresAt: Math.floor(Date.now() / 1000) + expiresIn,
    resource: new URL(RESOURCE),
  }));
  const auth = new McpBearerAuth({
    issuers: 'https://auth.example.com',
    resource: RESOURCE,
    verifyAccessToken: verify,
    ...options,
  });
  const request = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
  const signIn = async (token: string) => {
    const result = await auth.authenticate(request(token));
    return result instanceof Response ? result.status : result.clientId;
  };
  return { auth, request, verify, signIn };
}

describe('the verified-token cache', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('verifies a token once, then remembers it', async () => {
    const { verify, signIn } = setup();
    expect([await signIn('a'), await signIn('a'), await signIn('b')]).toEqual(['c', 'c', 'c']);
    expect(verify.mock.calls.map(([token]) => token)).toEqual(['a', 'b']);
  });

  it('answers a remembered token at once, without a promise', async () => {
    const { auth, request } = setup();
    const first = auth.authenticate(request('a'));
    expect(first).toBeInstanceOf(Promise);
    await first;
    const again = auth.authenticate(request('a'));
    expect(again).not.toBeInstanceOf(Promise);
    expect((again as AuthInfo).clientId).toBe('c');
    // A refusal that needs no verification is answered at once too.
    const bare = auth.authenticate({ headers: {} });
    expect(bare).toBeInstanceOf(Response);
    expect((bare as Response).status).toBe(401);
  });

  it('forgets a token at its exp, or after maxAgeMs, whichever comes first', async () => {
    jest.useFakeTimers({ now: NOW, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const short = setup({}, 10);
    await short.signIn('a');
    jest.setSystemTime(NOW + 9_999);
    await short.signIn('a');
    jest.setSystemTime(NOW + 10_000);
    await short.signIn('a');
    expect(short.verify).toHaveBeenCalledTimes(2);

    jest.setSystemTime(NOW);
    const long = setup({ tokenCache: { maxAgeMs: 1_000 } });
    await long.signIn('a');
    jest.setSystemTime(NOW + 999);
    await long.signIn('a');
    jest.setSystemTime(NOW + 1_000);
    await long.signIn('a');
    expect(long.verify).toHaveBeenCalledTimes(2);
  });

  it('keeps at most maxEntries, the oldest going first', async () => {
    const { verify, signIn } = setup({ tokenCache: { maxEntries: 2 } });
    for (const token of ['a', 'b', 'c', 'b', 'a']) await signIn(token);
    // a and b are kept; c pushes a out; b is still known; a is verified again.
    expect(verify.mock.calls.map(([token]) => token)).toEqual(['a', 'b', 'c', 'a']);
  });

  it('verifies every request with tokenCache: false, and never remembers a refusal', async () => {
    const uncached = setup({ tokenCache: false });
    await uncached.signIn('a');
    await uncached.signIn('a');
    expect(uncached.verify).toHaveBeenCalledTimes(2);

    const refusing = setup();
    refusing.verify.mockRejectedValue(new Error('down'));
    expect([await refusing.signIn('a'), await refusing.signIn('a')]).toEqual([401, 401]);
    expect(refusing.verify).toHaveBeenCalledTimes(2);
  });
});
