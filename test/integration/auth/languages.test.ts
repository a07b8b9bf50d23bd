// Languages of users and families (api-contract §12), through HTTP and a real SMTP server:
// `PATCH /api/me { locale }`, `PATCH /api/family { locale }` (admin), the language a new family
// takes from the request that creates it, and the emails in the recipient's (or, for an
// invitation, the sender's) language.
import { expect } from 'chai';
import { LOCALES } from '@family-shopping/client/protocol';
import { linkToken, type ReceivedMail } from '../../helpers/smtp.js';
import { startAccountsApp, newFamily, register, PASSWORD, uniq, type AccountsApp } from './harness.js';

describe('languages of users, families and emails', () => {
  let a: AccountsApp;
  before(async () => {
    a = await startAccountsApp();
  });
  after(async () => {
    await a?.close();
  });

  const me = (token: string) => a.req('GET', '/api/me', { token });
  const family = (token: string) => a.req('GET', '/api/family', { token });
  const patchMe = (token: string, body: unknown) => a.req('PATCH', '/api/me', { token, body });
  const patchFamily = (token: string, body: unknown) => a.req('PATCH', '/api/family', { token, body });
  const login = (email: string) => a.req('POST', '/api/auth/login', { body: { email, password: PASSWORD } });

  /** A family with an admin and a member who joined through an emailed invitation (so the
   *  member's email is confirmed). */
  async function familyWithMember(invitation?: (mail: ReceivedMail) => void) {
    const admin = await newFamily(a);
    const email = `m-${uniq()}@example.test`;
    const sent = await a.req('POST', '/api/family/invites', { token: admin.token, body: { email } });
    expect(sent.status).to.equal(201);
    const mail = await a.smtp.waitFor(email);
    invitation?.(mail);
    const member = await register(a, { inviteToken: linkToken(mail, 'invite') });
    expect(member.status).to.equal(201);
    return { admin, member: { ...member, email, token: member.body.accessToken as string } };
  }

  function expectProblem(res: { status: number; headers: Headers; body: any }, status: number, code: string) {
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(res.body.code).to.equal(code);
  }

  describe('PATCH /api/me { locale }', () => {
    it('sets, keeps and clears the user’s language; every session body and /api/me carry it', async () => {
      const u = await newFamily(a);
      expect(u.body.user.locale).to.equal(null);

      const set = await patchMe(u.token, { locale: 'de' });
      expect(set.status).to.equal(200);
      expect(set.body.user).to.deep.include({ userName: u.userName, locale: 'de' });
      expect((await me(u.token)).body).to.deep.equal(set.body);
      const session = await login(u.email);
      expect(session.body.user.locale).to.equal('de');
      const refreshed = await a.req('POST', '/api/auth/refresh', { body: { refreshToken: session.body.refreshToken } });
      expect(refreshed.status).to.equal(200);
      expect(refreshed.body.user.locale).to.equal('de');

      // a user-name change leaves the language as it is; both at once change both
      expect((await patchMe(u.token, { userName: `Renamed ${uniq()}` })).body.user.locale).to.equal('de');
      const both = await patchMe(u.token, { userName: u.userName, locale: 'pt-BR' });
      expect(both.body.user).to.deep.include({ userName: u.userName, locale: 'pt-BR' });

      for (const locale of LOCALES) expect((await patchMe(u.token, { locale })).body.user.locale).to.equal(locale);

      const cleared = await patchMe(u.token, { locale: null });
      expect(cleared.status).to.equal(200);
      expect(cleared.body.user.locale).to.equal(null);
      expect((await me(u.token)).body.user.locale).to.equal(null);
      expect((await login(u.email)).body.user.locale).to.equal(null);
    });

    it('refuses anything but one of the five tags or null: 400 validation_failed, nothing changed', async () => {
      const u = await newFamily(a);
      await patchMe(u.token, { locale: 'fr' });
      for (const locale of ['xx', 'de-DE', 'DE', 'pt', 'pt-br', 'en-US', '', 5, true, ['de'], { tag: 'de' }]) {
        const res = await patchMe(u.token, { locale });
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors[0].path, JSON.stringify(locale)).to.equal('body.locale');
      }
      // an empty edit, and a bad name with a good language, change nothing either
      expectProblem(await patchMe(u.token, {}), 400, 'validation_failed');
      expectProblem(await patchMe(u.token, { userName: '  ', locale: 'de' }), 400, 'validation_failed');
      expect((await me(u.token)).body.user).to.deep.include({ userName: u.userName, locale: 'fr' });
    });
  });

  describe('PATCH /api/family { locale }', () => {
    it('lets an admin set the family’s language; /api/family, /api/me and the next sessions carry it', async () => {
      const { admin, member } = await familyWithMember();
      expect((await family(admin.token)).body.locale).to.equal('en');
      expect(admin.body.family.locale).to.equal('en');

      const res = await patchFamily(admin.token, { locale: 'es' });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.include({ id: admin.familyId, name: admin.body.family.name, locale: 'es' });
      expect((await family(member.token)).body).to.deep.equal(res.body);
      expect((await me(member.token)).body.family).to.deep.equal({
        id: admin.familyId,
        name: admin.body.family.name,
        locale: 'es',
      });
      expect((await login(member.email)).body.family.locale).to.equal('es');
      // the user's own language is a separate thing
      expect((await me(member.token)).body.user.locale).to.equal(null);

      // name and language together
      const both = await patchFamily(admin.token, { name: 'Los García', locale: 'pt-BR' });
      expect(both.body).to.deep.include({ name: 'Los García', locale: 'pt-BR' });
    });

    it('refuses a member (403 forbidden) and a bad language (400), changing nothing', async () => {
      const { admin, member } = await familyWithMember();
      await patchFamily(admin.token, { locale: 'fr' });
      expectProblem(await patchFamily(member.token, { locale: 'de' }), 403, 'forbidden');
      for (const locale of [null, 'xx', 'de-AT', 'EN', 7]) {
        const res = await patchFamily(admin.token, { locale });
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors[0].path, JSON.stringify(locale)).to.equal('body.locale');
      }
      expectProblem(await patchFamily(admin.token, {}), 400, 'validation_failed');
      expect((await family(admin.token)).body.locale).to.equal('fr');
    });
  });

  describe('a new family’s language', () => {
    async function created(acceptLanguage?: string) {
      const res = await a.req('POST', '/api/auth/register', {
        body: {
          email: `n-${uniq()}@example.test`,
          userName: `n-${uniq()}`,
          password: PASSWORD,
          newFamilyName: `Fam ${uniq()}`,
        },
        headers: acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.user.locale).to.equal(null); // the creator has chosen nothing yet
      return res.body.family.locale as string;
    }

    it('is the best match of the creating request’s Accept-Language, else English', async () => {
      const cases: Array<[string | undefined, string]> = [
        ['de-AT,de;q=0.9', 'de'],
        ['de-DE', 'de'],
        ['pt-BR', 'pt-BR'],
        ['pt', 'pt-BR'],
        ['pt-PT,pt;q=0.8,en;q=0.5', 'pt-BR'],
        ['fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5', 'fr'],
        ['es-419,es;q=0.9', 'es'],
        ['ja,de;q=0.5', 'de'],
        ['en-GB,de;q=0.9', 'en'],
        ['de;q=0.2,fr;q=0.9', 'fr'],
        ['ja, zh-CN;q=0.8', 'en'],
        ['*', 'en'],
        ['', 'en'],
        [undefined, 'en'],
      ];
      for (const [header, locale] of cases) expect(await created(header), String(header)).to.equal(locale);
    });

    it('is not changed by those who join it, whatever their browser', async () => {
      const admin = await newFamily(a);
      await patchFamily(admin.token, { locale: 'de' });
      const code = (await family(admin.token)).body.inviteCode as string;
      const joined = await a.req('POST', '/api/auth/register', {
        body: { email: `j-${uniq()}@example.test`, userName: `j-${uniq()}`, password: PASSWORD, familyCode: code },
        headers: { 'accept-language': 'fr' },
      });
      expect(joined.status).to.equal(201);
      expect(joined.body.family.locale).to.equal('de');
      expect(joined.body.user.locale).to.equal(null);
    });
  });

  describe('emails in the reader’s language', () => {
    /** The mail's language as the mail says it: subject, text and HTML parts. */
    function expectMail(mail: ReceivedMail, locale: string, subject: RegExp, phrases: string[]) {
      expect(mail.subject).to.match(subject);
      for (const phrase of phrases) {
        expect(mail.text, `text: ${phrase}`).to.include(phrase);
        expect(mail.html, `html: ${phrase}`).to.include(phrase);
      }
      expect(mail.html).to.include(`<html lang="${locale}">`);
      expect(mail.parsed.headers.get('content-language')).to.equal(locale);
    }

    it('an invitation speaks its sender’s language', async () => {
      const admin = await newFamily(a);
      await patchMe(admin.token, { locale: 'de' });
      const email = `de-${uniq()}@example.test`;
      await a.req('POST', '/api/family/invites', { token: admin.token, body: { email } });
      const mail = await a.smtp.waitFor(email);
      const familyName = admin.body.family.name as string;
      expectMail(mail, 'de', new RegExp(`^Einladung zu „${familyName}“ bei Family Shopping$`), [
        `${admin.userName} hat dich eingeladen, der Familie „`,
        'bei Family Shopping beizutreten.',
        'Der Link funktioniert nur einmal und ist gültig bis',
      ]);
      expect(mail.text).to.include(`Öffne diesen Link, um dein Konto anzulegen: http://app.test/invite/`);
      expect(mail.html).to.include('Einladung annehmen</a>');

      // resent: a new mail, in the sender's language of now
      await patchMe(admin.token, { locale: 'pt-BR' });
      const [invite] = (await a.req('GET', '/api/family/invites', { token: admin.token })).body;
      expect((await a.req('POST', `/api/family/invites/${invite.id}/resend`, { token: admin.token })).status).to.equal(
        200,
      );
      const resent = await a.smtp.waitFor(email, 2);
      expectMail(resent, 'pt-BR', new RegExp(`^Participe da família “${familyName}” no Family Shopping$`), [
        `${admin.userName} convidou você para participar da família “`,
        'O link só pode ser usado uma vez e expira em',
      ]);
      expect(resent.html).to.include('Aceitar o convite</a>');
    });

    it('an invitation from a sender without a language speaks the family’s, else English', async () => {
      const admin = await newFamily(a);
      const english = `en-${uniq()}@example.test`;
      await a.req('POST', '/api/family/invites', { token: admin.token, body: { email: english } });
      expectMail(await a.smtp.waitFor(english), 'en', /^Join .* on Family Shopping$/, ['has invited you to join']);

      await patchFamily(admin.token, { locale: 'fr' });
      const email = `fr-${uniq()}@example.test`;
      await a.req('POST', '/api/family/invites', { token: admin.token, body: { email } });
      expectMail(await a.smtp.waitFor(email), 'fr', /^Rejoignez «\u00a0.*\u00a0» sur Family Shopping$/, [
        `${admin.userName} vous invite à rejoindre la famille «\u00a0`,
        'Ce lien ne fonctionne qu’une fois',
      ]);
    });

    it('a password reset speaks its recipient’s language, else their family’s', async () => {
      const { admin, member } = await familyWithMember();
      await patchMe(admin.token, { locale: 'de' }); // the admin's language is not the member's
      await patchMe(member.token, { locale: 'es' });
      await a.req('POST', '/api/auth/forgot-password', { body: { email: member.email } });
      const spanish = await a.smtp.waitFor(member.email, 2); // 1: the invitation
      expectMail(spanish, 'es', /^Restablece tu contraseña de Family Shopping$/, [
        `Hola, ${member.userName}:`,
        'Alguien (esperamos que tú) ha pedido restablecer tu contraseña de Family Shopping.',
        'es válido durante 15 minutos',
      ]);
      expect(spanish.text).to.include('Abre este enlace para elegir una nueva: http://app.test/reset-password/');
      expect(spanish.html).to.include('Elegir una contraseña nueva</a>');

      // no language of their own: the family's
      await patchMe(member.token, { locale: null });
      await patchFamily(admin.token, { locale: 'de' });
      await a.req('POST', '/api/auth/forgot-password', { body: { email: member.email } });
      const german = await a.smtp.waitFor(member.email, 3);
      expectMail(german, 'de', /^Dein Passwort für Family Shopping zurücksetzen$/, [
        `Hallo ${member.userName},`,
        'Jemand (hoffentlich du) möchte dein Passwort für Family Shopping zurücksetzen.',
        'ist 15 Minuten lang gültig',
      ]);
      expect(german.html).to.include('Neues Passwort festlegen</a>');
      // the link works whatever the language
      const reset = await a.req('POST', '/api/auth/reset-password', {
        body: { token: linkToken(german, 'reset-password'), newPassword: 'another long password' },
      });
      expect(reset.status).to.equal(200);
    });

    it('an email confirmation speaks its recipient’s language', async () => {
      const u = await newFamily(a);
      await patchMe(u.token, { locale: 'fr' });
      expect((await a.req('POST', '/api/me/email-confirmation', { token: u.token })).status).to.equal(202);
      const mail = await a.smtp.waitFor(u.email);
      expectMail(mail, 'fr', /^Confirmez votre adresse e-mail pour Family Shopping$/, [
        `Bonjour ${u.userName},`,
        'est bien votre adresse e-mail sur Family Shopping.',
        'reste valable 24 heures',
      ]);
      expect(mail.html).to.include(`<strong>${u.email}</strong>`);
    });
  });
});
