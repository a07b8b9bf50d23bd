// The mails as their reader sees them (server/mail/templates.ts): the plain-text part's
// paragraphs, the HTML part with every user-given value escaped and the bold of `<b>`, the
// reader's language in dates, and the links whatever the base's trailing slashes.
import { expect } from 'chai';
import {
  confirmEmailLink,
  emailConfirmationEmail,
  escapeHtml,
  inviteEmail,
  inviteLink,
  passwordResetEmail,
  resetLink,
} from '../../../server/mail/templates.js';

const expiresAt = new Date('2027-03-14T15:09:00Z');
const link = 'https://family.lan/x?a=1&b=2';
/** A value holding every character HTML needs escaped. */
const tricky = `Tom & "Jerry's" <b>Crew</b>`;

/** The text between `<body…>` and `</body>`, one line per paragraph. */
const bodyOf = (html: string) => /<body[^>]*>\n([\s\S]*)\n<\/body>/.exec(html)![1]!.split('\n');

describe('mail templates', () => {
  it('escapes each of & < > " and \' in values and links of the HTML part, and leaves the text part as typed', () => {
    expect(escapeHtml(`a&b<c>d"e'f`)).to.equal('a&amp;b&lt;c&gt;d&quot;e&#39;f');
    const mail = inviteEmail({ to: 'ann@example.test', familyName: tricky, inviterName: 'Bob <3', link, expiresAt });
    expect(mail.html).to.include('Bob &lt;3 has invited you to join the family');
    expect(mail.html).to.include('“<strong>Tom &amp; &quot;Jerry&#39;s&quot; &lt;b&gt;Crew&lt;/b&gt;</strong>”');
    expect(mail.html).to.include(`<a href="https://family.lan/x?a=1&amp;b=2">Accept the invitation</a>`);
    expect(mail.html).to.include(
      '<title>Join Tom &amp; &quot;Jerry&#39;s&quot; &lt;b&gt;Crew&lt;/b&gt; on Family Shopping</title>',
    );
    // The text part: the values as given, the bold tag marks nothing.
    expect(mail.subject).to.equal(`Join ${tricky} on Family Shopping`);
    expect(mail.text).to.include(`Bob <3 has invited you to join the family “${tricky}” on Family Shopping.`);
    expect(mail.text).not.to.match(/&amp;|&lt;|<strong>/);
  });

  it('writes an invitation as paragraphs: the invitation, the link after its sentence, the small print', () => {
    const mail = inviteEmail({ to: 'ann@example.test', familyName: 'Smiths', inviterName: null, link, expiresAt });
    expect(mail.text.split('\n\n')).to.deep.equal([
      'You have been invited to join the family “Smiths” on Family Shopping.',
      `Open this link to create your account: ${link}`,
      'The link works once and expires on March 14, 2027 at 3:09 PM UTC.\n' +
        'If you weren’t expecting this invitation, you can ignore this email.',
    ]);
    expect(bodyOf(mail.html)).to.deep.equal([
      '<p>You have been invited to join the family “<strong>Smiths</strong>” on Family Shopping.</p>',
      `<p><a href="https://family.lan/x?a=1&amp;b=2">Accept the invitation</a></p>`,
      '<p style="color:#666;font-size:smaller">The link works once and expires on March 14, 2027 at 3:09 PM UTC. ' +
        'If you weren’t expecting this invitation, you can ignore this email.</p>',
    ]);
    expect(mail.html).to.match(/^<!doctype html>\n<html lang="en">/);
  });

  it('puts a greeting alone on its line, and runs the sentences after it on to the link', () => {
    const mail = passwordResetEmail({ to: 'ann@example.test', userName: 'Ann', validMinutes: 1, link, expiresAt });
    expect(mail.text.split('\n\n')).to.deep.equal([
      'Hello Ann,',
      `Someone (hopefully you) asked to reset your Family Shopping password. Open this link to choose a new one: ${link}`,
      'The link works once and is valid for 1 minute (until March 14, 2027 at 3:09 PM UTC).\n' +
        'If you didn’t ask for this, ignore this email; your password stays as it is.',
    ]);
    expect(bodyOf(mail.html).slice(0, 2)).to.deep.equal([
      '<p>Hello Ann,</p>',
      '<p>Someone (hopefully you) asked to reset your Family Shopping password.</p>',
    ]);
    const confirm = emailConfirmationEmail({
      to: 'a<b@example.test',
      userName: 'Ann',
      validHours: 48,
      link,
      expiresAt,
    });
    expect(confirm.text.split('\n\n')[1]).to.equal(
      `Please confirm that a<b@example.test is your email address on Family Shopping. Open this link to confirm it: ${link}`,
    );
    expect(confirm.html).to.include('<p>Please confirm that <strong>a&lt;b@example.test</strong> is your email');
    expect(confirm.text.split('\n\n')[2]!.split('\n')).to.have.length(3); // expiry, why, ignore
  });

  it('writes dates and plurals in the reader’s language', () => {
    const de = passwordResetEmail({
      to: 'a@example.test',
      userName: 'Ann',
      validMinutes: 30,
      link,
      expiresAt,
      locale: 'de',
    });
    expect(de.locale).to.equal('de');
    expect(de.html).to.match(/^<!doctype html>\n<html lang="de">/);
    expect(de.text).to.include('14. März 2027');
    expect(de.text).not.to.include('March');
    const fr = emailConfirmationEmail({
      to: 'a@example.test',
      userName: 'Ann',
      validHours: 2,
      link,
      expiresAt,
      locale: 'fr',
    });
    expect(fr.text).to.include('14 mars 2027');
  });

  it('joins the base and the path with one slash, however many the base ends with', () => {
    for (const base of ['https://family.lan', 'https://family.lan/', 'https://family.lan//']) {
      expect(inviteLink(base, 'tok')).to.equal('https://family.lan/invite/tok');
      expect(resetLink(base, 'tok')).to.equal('https://family.lan/reset-password/tok');
      expect(confirmEmailLink(base, 'tok')).to.equal('https://family.lan/confirm-email/tok');
    }
    expect(inviteLink('https://x.test/app/', 't')).to.equal('https://x.test/app/invite/t');
  });
});
