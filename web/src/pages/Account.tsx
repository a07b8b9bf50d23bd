import { LIMITS } from '@family-shopping/client';
import { useState } from 'preact/hooks';
import type { PageProps } from '../lib/router.tsx';
import { rememberLocale, signOut } from '../lib/app.ts';
import { useAction } from '../lib/hooks.ts';
import { ErrorText, Field } from '../components/Form.tsx';
import { plainHttp } from '../lib/secure.ts';
import { t } from '../lib/i18n.ts';
import { LANGUAGE_NAMES, LOCALES, isLocale } from '../lib/locale.ts';
import { chooseLanguage, currentChoice } from '../lib/language.ts';

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
  const lang = useAction();
  const choice = currentChoice(session);
  return (
    <>
      <h1>{t('nav.account')}</h1>
      <section class="card">
        <h2>{shownName}</h2>
        <p>{t('account.membership', { email: session.user.email, role: session.role, family: session.family.name })}</p>
        {!session.user.emailConfirmed && (
          <p>
            {t('account.notConfirmed')}{' '}
            <button
              type="button"
              onClick={() =>
                void mail.run(
                  async () => (
                    await client.rest('POST', '/api/me/email-confirmation'),
                    setNotice(t('account.confirmationSent'))
                  ),
                )
              }
            >
              {t('account.sendConfirmation')}
            </button>
          </p>
        )}
        <ErrorText error={mail.error} />
      </section>
      <section class="card">
        <div class="field">
          <label for="language">{t('account.language')}</label>
          <select
            id="language"
            value={choice ?? ''}
            onChange={(e) => {
              const value = e.currentTarget.value;
              setNotice(null);
              // Applied at once; offline it waits on this device and is saved when back online.
              void lang.run(async () => {
                const { saved } = await chooseLanguage(client, isLocale(value) ? value : null, rememberLocale, session);
                setNotice(saved ? t('account.languageSaved') : t('account.languageOffline'));
              });
            }}
          >
            <option value="">{t('account.languageBrowser')}</option>
            {LOCALES.map((l) => (
              <option value={l} lang={l}>
                {LANGUAGE_NAMES[l]}
              </option>
            ))}
          </select>
        </div>
        <ErrorText error={lang.error} />
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
            setNotice(t('account.userNameSaved'));
          });
        }}
      >
        <h2>{t('auth.userName')}</h2>
        <Field
          label={t('auth.userName')}
          required
          maxLength={LIMITS.userName}
          value={userName}
          onInput={(e) => setUserName(e.currentTarget.value)}
        />
        <ErrorText error={name.error} />
        <button type="submit">{t('account.saveUserName')}</button>
      </form>
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          void pw.run(async () => {
            await client.rest('POST', '/api/me/password', { currentPassword: current, newPassword: next });
            setCurrent('');
            setNext('');
            setNotice(t('account.passwordChanged'));
          });
        }}
      >
        <h2>{t('auth.password')}</h2>
        <Field
          label={t('account.currentPassword')}
          type="password"
          autocomplete="current-password"
          required
          value={current}
          onInput={(e) => setCurrent(e.currentTarget.value)}
        />
        <Field
          label={t('auth.newPassword')}
          type="password"
          autocomplete="new-password"
          required
          minLength={8}
          hint={t('auth.passwordHint')}
          value={next}
          onInput={(e) => setNext(e.currentTarget.value)}
        />
        <ErrorText error={pw.error?.includes('invalid_credentials') ? t('account.wrongPassword') : pw.error} />
        <button type="submit">{t('account.changePassword')}</button>
      </form>
      {plainHttp && (
        <section class="card" aria-labelledby="this-device">
          <h2 id="this-device">{t('account.thisDevice')}</h2>
          <p class="hint">{t('secure.plainHttp')}</p>
        </section>
      )}
      <section class="card">
        <h2>{t('account.signOut')}</h2>
        <p class="hint">{t('account.signOutHint')}</p>
        <ErrorText error={out.error} />
        <button
          type="button"
          class="danger"
          onClick={() =>
            // The shell takes a signed-out app to the sign-in page.
            void out.run(() => signOut())
          }
        >
          {t('account.signOut')}
        </button>
      </section>
    </>
  );
}
