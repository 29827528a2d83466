/**
 * The caller identity: a principal is its issuer, subject and client; the default `identify`
 * takes `request.user`'s id, else the principal of the request's context (resolved only then),
 * and nothing else of the request, never its credential or its address.
 */
import { describe, expect, it } from '@jest/globals';
import {
  identityKey,
  identifyByUserOrPrincipal,
  principalIdentity,
} from '../../lib/core/caller-identity.js';
import type { ToolContext } from '../../lib/core/types.js';

const request = (extra: object = {}) => ({
  headers: { authorization: 'Bearer k1' },
  socket: { remoteAddress: '10.0.0.1' },
  ...extra,
});
const principal = (fields: object) => ({ clientId: 'app', scopes: [], ...fields });
/** A context resolver that counts how often it is asked. */
function contextOf(context: ToolContext) {
  const resolved = Object.assign(() => (resolved.calls++, Promise.resolve(context)), { calls: 0 });
  return resolved;
}

describe('principalIdentity', () => {
  it('tells principals apart by issuer, subject and client', () => {
    const ids = [
      principal({ issuer: 'https://a.example', subject: 'u1' }),
      principal({ issuer: 'https://b.example', subject: 'u1' }),
      principal({ issuer: 'https://a.example', subject: 'u2' }),
      principal({ issuer: 'https://a.example', subject: 'u1', clientId: 'other' }),
      principal({ subject: 'u1' }),
    ].map(principalIdentity);
    expect(new Set(ids).size).toBe(5);
  });
});

describe('identifyByUserOrPrincipal', () => {
  it('takes the id, sub or userId of request.user, without resolving the context', async () => {
    const context = contextOf({ principal: principal({ subject: 'someone else' }) });
    const of = (user: unknown) => identifyByUserOrPrincipal(request({ user }), context);
    expect(await of({ id: 'u1' })).toBe(await of({ sub: 'u1' }));
    expect(await of({ userId: 7 })).toBe(await of('7'));
    expect(await of({ id: 'u1' })).not.toBe(await of({ id: 'u2' }));
    expect(context.calls).toBe(0);
  });

  it('else the principal of the context: the same whatever credential or address carried it', async () => {
    const context = contextOf({
      principal: principal({ issuer: 'https://a.example', subject: 'u1' }),
    });
    const first = await identifyByUserOrPrincipal(request(), context);
    const second = await identifyByUserOrPrincipal(
      { headers: { 'x-api-key': 'k2' }, socket: { remoteAddress: '10.9.9.9' } },
      context,
    );
    expect(first).toBe(second);
    expect(first).toBe(
      principalIdentity(principal({ issuer: 'https://a.example', subject: 'u1' })),
    );
    expect(context.calls).toBe(2);
  });

  it('names nobody when the request has neither: never its credential or its address', async () => {
    for (const user of [undefined, null, {}, { id: '' }, { name: 'ada' }, '', 3]) {
      expect(await identifyByUserOrPrincipal(request({ user }), contextOf({}))).toBeUndefined();
    }
    expect(await identifyByUserOrPrincipal(undefined, contextOf({}))).toBeUndefined();
    expect(
      await identifyByUserOrPrincipal(request(), contextOf({ principal: 'not a principal' })),
    ).toBeUndefined();
  });
});

describe('identityKey', () => {
  it('is a digest: stable, and carries nothing of the identity', () => {
    const identity = JSON.stringify(['user', 'alice@example.com']);
    expect(identityKey(identity)).toBe(identityKey(identity));
    expect(identityKey(identity)).toMatch(/^[\w-]{43}$/);
    expect(identityKey(identity)).not.toContain('alice');
  });
});
