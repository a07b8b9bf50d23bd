import { LIMITS } from '@family-shopping/client';
import { useState } from 'preact/hooks';
import type { PageProps } from '../lib/router.tsx';
import { signOut } from '../lib/app.ts';
import { useAction } from '../lib/hooks.ts';
import { ErrorText, Field } from '../components/Form.tsx';
import { plainHttp } from '../lib/secure.ts';
import { t } from '../lib/i18n.ts';

export function AccountPage({ client, session }: PageProps) {
  const [userName, setUserName] = useState(session.user.userName);
  const [shownName, setShownName] = useState(session.user.userName);
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const name = useAction();
  const pw = useAction();
  const mail = useAction();
  const out = useAction();
  return (
    <>
      <h1>Account</h1>
      <section class="card">
        <h2>{shownName}</h2>
        <p>
          {session.user.email} · {session.role === 'admin' ? 'admin' : 'member'} of {session.family.name}
        </p>
        {!session.user.emailConfirmed && (
          <p>
            Your email is not confirmed.{' '}
            <button
              type="button"
              onClick={() =>
                void mail.run(
                  async () => (
                    await client.rest('POST', '/api/me/email-confirmation'),
                    setNotice('A confirmation link is on its way.')
                  ),
                )
              }
            >
              Send confirmation email
            </button>
          </p>
        )}
        <ErrorText error={mail.error} />
      </section>
      {notice && <p class="notice">{notice}</p>}
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          void name.run(async () => {
            const me = await client.rest<{ user: { userName: string } }>('PATCH', '/api/me', {
              userName: userName.trim(),
            });
            setShownName(me.user.userName);
            setNotice('User name saved.');
          });
        }}
      >
        <h2>User name</h2>
        <Field
          label="User name"
          required
          maxLength={LIMITS.userName}
          value={userName}
          onInput={(e) => setUserName(e.currentTarget.value)}
        />
        <ErrorText error={name.error} />
        <button type="submit">Save user name</button>
      </form>
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          void pw.run(async () => {
            await client.rest('POST', '/api/me/password', { currentPassword: current, newPassword: next });
            setCurrent('');
            setNext('');
            setNotice('Password changed. Your other devices must sign in again.');
          });
        }}
      >
        <h2>Password</h2>
        <Field
          label="Current password"
          type="password"
          autocomplete="current-password"
          required
          value={current}
          onInput={(e) => setCurrent(e.currentTarget.value)}
        />
        <Field
          label="New password"
          type="password"
          autocomplete="new-password"
          required
          minLength={8}
          hint="At least 8 characters"
          value={next}
          onInput={(e) => setNext(e.currentTarget.value)}
        />
        <ErrorText
          error={pw.error?.includes('invalid_credentials') ? 'The current password is not right.' : pw.error}
        />
        <button type="submit">Change password</button>
      </form>
      {plainHttp && (
        <section class="card" aria-labelledby="this-device">
          <h2 id="this-device">This device</h2>
          <p class="hint">{t('secure.plainHttp')}</p>
        </section>
      )}
      <section class="card">
        <h2>Sign out</h2>
        <p class="hint">Signing out removes this family's data from this device.</p>
        <ErrorText error={out.error} />
        <button
          type="button"
          class="danger"
          onClick={() =>
            // The shell takes a signed-out app to the sign-in page.
            void out.run(() => signOut())
          }
        >
          Sign out
        </button>
      </section>
    </>
  );
}
