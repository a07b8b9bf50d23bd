// When the SDK thinks an access token expires and when it refreshes it (session.ts): read from
// the token's own `iat`/`exp` (unverified: the server verifies), a quarter of its lifetime
// ahead and at most a minute ahead; a token it cannot read is never refreshed ahead.
import { expect } from 'chai';
import { isExpired, refreshDelay, tokenTimes } from '../../../client-sdk/src/session.js';

/** A JWT-shaped token with these claims (base64url, as servers issue them). */
function token(claims: Record<string, unknown>): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}.c2ln`;
}

describe('SDK: access-token timing', () => {
  const iat = 1_800_000_000; // seconds

  it('reads iat and exp in ms, base64url with or without padding', () => {
    expect(tokenTimes(token({ iat, exp: iat + 900 }))).to.deep.equal({
      issuedAt: iat * 1000,
      expiresAt: (iat + 900) * 1000,
    });
    // claims whose base64url holds '-' and '_', of every length modulo 4
    for (const sub of ['>?>', '??>', '??>?', '??>??', '??>???']) {
      const t = token({ sub, iat, exp: iat + 60 });
      expect(t.split('.')[1]).to.match(/^[A-Za-z0-9_-]+$/);
      expect(tokenTimes(t), sub).to.deep.equal({ issuedAt: iat * 1000, expiresAt: (iat + 60) * 1000 });
    }
  });

  it('without iat the token is taken as issued at its expiry; without a numeric exp it has no times', () => {
    expect(tokenTimes(token({ exp: iat }))).to.deep.equal({ issuedAt: iat * 1000, expiresAt: iat * 1000 });
    expect(tokenTimes(token({ iat: String(iat), exp: iat }))).to.deep.equal({
      issuedAt: iat * 1000,
      expiresAt: iat * 1000,
    });
    expect(tokenTimes(token({ iat }))).to.equal(null);
    expect(tokenTimes(token({ iat, exp: String(iat + 900) }))).to.equal(null);
    for (const bad of ['', 'opaque', 'a.', 'a.%%%.b', `a.${Buffer.from('not json').toString('base64url')}.b`]) {
      expect(tokenTimes(bad), bad).to.equal(null);
    }
  });

  it('refreshes a quarter of the lifetime before expiry, at most a minute before, never below 0', () => {
    const at = (s: number) => s * 1000;
    // 15 min token: a minute before (a quarter would be 225 s)
    expect(refreshDelay(token({ iat, exp: iat + 900 }), at(iat))).to.equal(at(840));
    // 2 min token: 30 s before (a quarter)
    expect(refreshDelay(token({ iat, exp: iat + 120 }), at(iat))).to.equal(at(90));
    expect(refreshDelay(token({ iat, exp: iat + 120 }), at(iat + 50))).to.equal(at(40));
    // due already, or long expired: now
    expect(refreshDelay(token({ iat, exp: iat + 120 }), at(iat + 90))).to.equal(0);
    expect(refreshDelay(token({ iat, exp: iat + 120 }), at(iat + 1000))).to.equal(0);
    // an exp before iat (a broken clock): no margin
    expect(refreshDelay(token({ iat: iat + 100, exp: iat }), at(iat - 10))).to.equal(at(10));
    expect(refreshDelay('opaque', at(iat))).to.equal(null);
    // now defaults to this device's clock
    const nowS = Math.floor(Date.now() / 1000);
    expect(refreshDelay(token({ iat: nowS, exp: nowS + 3600 }))).to.be.within(at(3480), at(3541));
  });

  it('expired from exp on (this device’s clock), unreadable tokens never', () => {
    const t = token({ iat, exp: iat + 900 });
    expect(isExpired(t, (iat + 900) * 1000 - 1)).to.equal(false);
    expect(isExpired(t, (iat + 900) * 1000)).to.equal(true);
    expect(isExpired(t, (iat + 901) * 1000)).to.equal(true);
    expect(isExpired('opaque', Number.MAX_SAFE_INTEGER)).to.equal(false);
    expect(isExpired(t)).to.equal(Date.now() >= (iat + 900) * 1000);
    const nowS = Math.floor(Date.now() / 1000);
    expect(isExpired(token({ iat: nowS - 1000, exp: nowS - 100 }))).to.equal(true);
    expect(isExpired(token({ iat: nowS, exp: nowS + 3600 }))).to.equal(false);
  });
});
