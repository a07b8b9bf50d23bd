import { expect } from 'chai';
import type { FamilyEvent } from '../../../server/events/bus.js';
import { startAccountsApp, newFamily, register, uniq, type AccountsApp } from '../auth/harness.js';

describe('family: the family, its code, members and roles', () => {
  let a: AccountsApp;
  before(async () => {
    a = await startAccountsApp();
  });
  after(async () => {
    await a?.close();
  });

  async function familyWithMember() {
    const admin = await newFamily(a);
    const code = (await a.req('GET', '/api/family', { token: admin.token })).body.inviteCode;
    const member = await register(a, { familyCode: code });
    return { admin, member, memberId: member.body.user.id as string, memberToken: member.body.accessToken as string };
  }

  function captureEvents() {
    const seen: Array<{ familyId: string; events: FamilyEvent[] }> = [];
    const stop = a.app.deps.bus.subscribe((familyId, events) => seen.push({ familyId, events }));
    return { seen, stop };
  }

  it('GET /family shows id, name and code to any member', async () => {
    const { admin, memberToken } = await familyWithMember();
    const res = await a.req('GET', '/api/family', { token: memberToken });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.keys('id', 'name', 'inviteCode', 'locale');
    expect(res.body.id).to.equal(admin.familyId);
    expect(res.body.name).to.equal(admin.body.family.name);
  });

  it('rotates the family code (admin): the old code stops working, the new one works', async () => {
    const admin = await newFamily(a);
    const old = (await a.req('GET', '/api/family', { token: admin.token })).body.inviteCode;
    const res = await a.req('POST', '/api/family/invite-code', { token: admin.token });
    expect(res.status).to.equal(200);
    expect(res.body.inviteCode).to.be.a('string').and.not.equal(old);
    expect((await a.req('GET', '/api/family', { token: admin.token })).body.inviteCode).to.equal(res.body.inviteCode);
    expect((await register(a, { familyCode: old })).body.code).to.equal('family_code_invalid');
    expect((await register(a, { familyCode: res.body.inviteCode })).status).to.equal(201);
  });

  it('lists members with userId, userName, email, role, joinedAt', async () => {
    const { admin, member, memberId, memberToken } = await familyWithMember();
    const res = await a.req('GET', '/api/family/members', { token: memberToken });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.length(2);
    const m = res.body.find((x: any) => x.userId === memberId);
    expect(m).to.include({ userName: member.userName, email: member.email, role: 'member' });
    expect(new Date(m.joinedAt).toISOString()).to.equal(m.joinedAt);
    expect(res.body.find((x: any) => x.userId === admin.body.user.id).role).to.equal('admin');
  });

  it('changes a role; the new role takes effect at once; MemberRoleChanged is published', async () => {
    const { admin, memberId, memberToken } = await familyWithMember();
    const { seen, stop } = captureEvents();
    try {
      const res = await a.req('PATCH', `/api/family/members/${memberId}`, {
        token: admin.token,
        body: { role: 'admin' },
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ userId: memberId, role: 'admin' });
      expect(res.body).to.have.keys('userId', 'userName', 'email', 'role', 'joinedAt');
      // the promoted member's existing token now reaches admin endpoints
      expect((await a.req('GET', '/api/family/invites', { token: memberToken })).status).to.equal(200);
      const ev = seen.find((s) => s.familyId === admin.familyId)?.events.find((e) => e.type === 'MemberRoleChanged');
      expect(ev).to.deep.include({ userId: memberId, role: 'admin' });
      // and back: demoting one of two admins is fine
      const back = await a.req('PATCH', `/api/family/members/${memberId}`, {
        token: admin.token,
        body: { role: 'member' },
      });
      expect(back.body.role).to.equal('member');
      expect((await a.req('GET', '/api/family/invites', { token: memberToken })).status).to.equal(403);
    } finally {
      stop();
    }
  });

  it('refuses to demote the last admin (409 last_admin)', async () => {
    const { admin } = await familyWithMember();
    const res = await a.req('PATCH', `/api/family/members/${admin.body.user.id}`, {
      token: admin.token,
      body: { role: 'member' },
    });
    expect(res.status).to.equal(409);
    expect(res.body.code).to.equal('last_admin');
    expect(res.body.detail).to.equal('A family needs at least one admin; make someone else admin first');
    expect((await a.req('GET', '/api/me', { token: admin.token })).body.role).to.equal('admin');
  });

  it('refuses to remove the last admin (409 last_admin)', async () => {
    const { admin } = await familyWithMember();
    const res = await a.req('DELETE', `/api/family/members/${admin.body.user.id}`, { token: admin.token });
    expect(res.status).to.equal(409);
    expect(res.body.code).to.equal('last_admin');
    expect(res.body.detail).to.equal('A family needs at least one admin; make someone else admin first');
  });

  it('removes a member: 204, their tokens fail at once, refresh tokens revoked, MemberRemoved published', async () => {
    const { admin, member, memberId, memberToken } = await familyWithMember();
    const { seen, stop } = captureEvents();
    try {
      const res = await a.req('DELETE', `/api/family/members/${memberId}`, { token: admin.token });
      expect(res.status).to.equal(204);
      expect((await a.req('GET', '/api/family', { token: memberToken })).status).to.equal(401);
      expect(
        (await a.req('POST', '/api/auth/refresh', { body: { refreshToken: member.body.refreshToken } })).status,
      ).to.equal(401);
      const ev = seen.find((s) => s.familyId === admin.familyId)?.events.find((e) => e.type === 'MemberRemoved');
      expect(ev).to.deep.include({ userId: memberId });
      const members = await a.req('GET', '/api/family/members', { token: admin.token });
      expect(members.body.map((m: any) => m.userId)).to.not.include(memberId);
      expect((await a.req('DELETE', `/api/family/members/${memberId}`, { token: admin.token })).status).to.equal(404);
    } finally {
      stop();
    }
  });

  it('lets one of two admins remove the other', async () => {
    const { admin, memberId, memberToken } = await familyWithMember();
    await a.req('PATCH', `/api/family/members/${memberId}`, { token: admin.token, body: { role: 'admin' } });
    expect(
      (await a.req('DELETE', `/api/family/members/${admin.body.user.id}`, { token: memberToken })).status,
    ).to.equal(204);
    expect((await a.req('GET', '/api/me', { token: admin.token })).status).to.equal(401);
  });

  it('treats a user of another family as unknown (404) for role change and removal', async () => {
    const mine = await newFamily(a);
    const { memberId, memberToken } = await familyWithMember();
    for (const [method, body] of [
      ['PATCH', { role: 'admin' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await a.req(method, `/api/family/members/${memberId}`, { token: mine.token, body });
      expect(res.status, method).to.equal(404);
      expect(res.body.detail, method).to.equal('No such member in your family');
    }
    expect((await a.req('GET', '/api/me', { token: memberToken })).body.role).to.equal('member');
    expect(
      (await a.req('DELETE', `/api/family/members/00000000-0000-4000-8000-000000000000`, { token: mine.token })).status,
    ).to.equal(404);
  });

  it('answers every family endpoint without a token with 401', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    for (const [m, p] of [
      ['GET', '/api/family'],
      ['POST', '/api/family/invite-code'],
      ['GET', '/api/family/members'],
      ['PATCH', `/api/family/members/${id}`],
      ['DELETE', `/api/family/members/${id}`],
      ['GET', '/api/family/invites'],
      ['POST', '/api/family/invites'],
      ['POST', `/api/family/invites/${id}/resend`],
      ['DELETE', `/api/family/invites/${id}`],
      ['GET', '/api/me'],
    ] as const) {
      const res = await a.req(m, p, {
        body: m === 'GET' ? undefined : { email: `z-${uniq()}@example.test`, role: 'admin' },
      });
      expect(res.status, `${m} ${p}`).to.equal(401);
    }
  });
});
