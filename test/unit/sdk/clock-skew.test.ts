// A device whose clock is off by minutes (it happens: phones with the time set by hand) still
// refreshes its access token on the token's own schedule: the client measures the offset from
// each freshly issued token's `iat`, instead of comparing `exp` with its own clock. The server is
// a fake fetch here, so the two clocks can disagree.
import { expect } from 'chai';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { createFamilyClient, type FamilyClient } from '@family-shopping/client';

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

function fakeServer(offsetMs: number) {
  let n = 0;
  const counts = { refresh: 0, login: 0 };
  const session = () => {
    const iat = Math.floor((Date.now() - offsetMs) / 1000); // the server's clock
    n++;
    return {
      accessToken: `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: 'u', family_id: 'f', role: 'member', iat, exp: iat + 900, jti: String(n) })}.sig`,
      refreshToken: `refresh-${n}`,
      expiresIn: 900,
      user: {
        id: '00000000-0000-4000-8000-0000000000aa',
        email: 'ann@example.test',
        userName: 'ann',
        emailConfirmed: true,
      },
      family: { id: '00000000-0000-4000-8000-0000000000bb', name: 'Family' },
      role: 'member' as const,
    };
  };
  const json = (body: unknown) =>
    new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  const fetch = async (url: string) => {
    if (url.endsWith('/api/auth/login')) return (counts.login++, json(session()));
    if (url.endsWith('/api/auth/refresh')) return (counts.refresh++, json(session()));
    if (url.includes('/pull')) return json({ documents: [], checkpoint: null });
    if (url.includes('/push')) return json({ conflicts: [], rejected: [] });
    return json({});
  };
  return { fetch, counts };
}

describe('SDK: a device clock that is off', function () {
  this.timeout(20_000);
  let client: FamilyClient | undefined;
  afterEach(async () => {
    await client?.destroy();
    client = undefined;
  });

  for (const [label, offsetMs] of [
    ['20 minutes fast', 20 * 60_000],
    ['20 minutes slow', -20 * 60_000],
  ] as const) {
    it(`does not refresh a fresh 15-minute token when the device is ${label}`, async () => {
      const server = fakeServer(offsetMs);
      client = await createFamilyClient({
        baseUrl: 'http://server.test',
        storage: getRxStorageMemory(),
        databaseName: `skew-${offsetMs}`,
        fetch: server.fetch as never,
        realtime: false,
      });
      await client.auth.login('ann@example.test', 'a long enough password');
      await client.start();
      await new Promise((r) => setTimeout(r, 1_500));
      expect(server.counts.login).to.equal(1);
      expect(server.counts.refresh).to.equal(0);
      expect(Math.abs(client.auth.serverNow() - (Date.now() - offsetMs))).to.be.below(2_000);
    });
  }
});
