// Email bodies: plain text and HTML for every message. Every value that comes from a user
// (names) is escaped in the HTML part.
import type { MailMessage } from './mailer.js';

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function layout(title: string, paragraphs: string[], link: { href: string; label: string }, footer: string): string {
  const ps = paragraphs.map((p) => `<p>${p}</p>`).join('\n');
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body style="font-family: sans-serif; line-height: 1.5">
${ps}
<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>
<p style="color:#666;font-size:smaller">${footer}</p>
</body></html>`;
}

export function inviteEmail(input: {
  to: string;
  familyName: string;
  inviterName: string | null;
  link: string;
  expiresAt: Date;
}): MailMessage {
  const who = input.inviterName ? `${input.inviterName} has invited you` : 'You have been invited';
  const subject = `Join ${input.familyName} on Family Shopping`;
  const expires = input.expiresAt.toISOString();
  const text = [
    `${who} to join the family "${input.familyName}" on Family Shopping.`,
    '',
    `Open this link to create your account: ${input.link}`,
    '',
    `The link works once and expires at ${expires}.`,
    'If you did not expect this invitation, ignore this email.',
  ].join('\n');
  const html = layout(
    subject,
    [`${escapeHtml(who)} to join the family <strong>${escapeHtml(input.familyName)}</strong> on Family Shopping.`],
    { href: input.link, label: 'Accept the invitation' },
    `The link works once and expires at ${escapeHtml(expires)}. If you did not expect this invitation, ignore this email.`,
  );
  return { to: input.to, subject, text, html };
}

export function passwordResetEmail(input: {
  to: string;
  userName: string;
  link: string;
  expiresAt: Date;
}): MailMessage {
  const subject = 'Reset your Family Shopping password';
  const expires = input.expiresAt.toISOString();
  const text = [
    `Hello ${input.userName},`,
    '',
    `Someone (hopefully you) asked to reset your Family Shopping password. Open this link to choose a new one: ${input.link}`,
    '',
    `The link works once and expires at ${expires} (15 minutes).`,
    'If you did not ask for this, ignore this email; your password stays as it is.',
  ].join('\n');
  const html = layout(
    subject,
    [`Hello ${escapeHtml(input.userName)},`, 'Someone (hopefully you) asked to reset your Family Shopping password.'],
    { href: input.link, label: 'Choose a new password' },
    `The link works once and expires at ${escapeHtml(expires)} (15 minutes). If you did not ask for this, ignore this email; your password stays as it is.`,
  );
  return { to: input.to, subject, text, html };
}

export function emailConfirmationEmail(input: {
  to: string;
  userName: string;
  link: string;
  expiresAt: Date;
}): MailMessage {
  const subject = 'Confirm your email for Family Shopping';
  const expires = input.expiresAt.toISOString();
  const text = [
    `Hello ${input.userName},`,
    '',
    `Open this link to confirm that ${input.to} is your email address on Family Shopping: ${input.link}`,
    '',
    `The link works once and expires at ${expires} (24 hours). A confirmed email lets you reset a forgotten password.`,
    'If you did not ask for this, ignore this email.',
  ].join('\n');
  const html = layout(
    subject,
    [
      `Hello ${escapeHtml(input.userName)},`,
      `Confirm that <strong>${escapeHtml(input.to)}</strong> is your email address on Family Shopping.`,
    ],
    { href: input.link, label: 'Confirm my email' },
    `The link works once and expires at ${escapeHtml(expires)} (24 hours). A confirmed email lets you reset a forgotten password. If you did not ask for this, ignore this email.`,
  );
  return { to: input.to, subject, text, html };
}

export const inviteLink = (appBaseUrl: string, token: string) => `${appBaseUrl.replace(/\/+$/, '')}/invite/${token}`;
export const resetLink = (appBaseUrl: string, token: string) =>
  `${appBaseUrl.replace(/\/+$/, '')}/reset-password/${token}`;
export const confirmEmailLink = (appBaseUrl: string, token: string) =>
  `${appBaseUrl.replace(/\/+$/, '')}/confirm-email/${token}`;
