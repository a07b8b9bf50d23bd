import { useState } from 'preact/hooks';
import { notice$, signIn } from '../lib/session.ts';
import { useAction, useObservable } from '../lib/hooks.ts';
import { t, tRich } from '../lib/i18n.ts';
import { Link, navigate } from '../lib/router.tsx';
import { ErrorText, Field } from '../components/Form.tsx';

/** Where to go after signing in: the page that asked for it (same-origin paths only). */
export function nextPath(): string {
  const next = new URLSearchParams(location.search).get('next');
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function LoginPage(_: { params: Record<string, string> }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const notice = useObservable(() => notice$, [], notice$.value);
  const { busy, error, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      await signIn(email.trim(), password);
      notice$.next(null);
      // The signed-in shell loads and starts replicating (App.tsx).
      navigate(nextPath(), { replace: true });
    });
  };
  return (
    <div class="auth">
      <h1>{t('auth.signIn')}</h1>
      {notice && <p class="notice">{t(notice)}</p>}
      <form onSubmit={submit}>
        <Field
          label={t('auth.email')}
          type="email"
          autocomplete="username"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <Field
          label={t('auth.password')}
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <ErrorText error={error} />
        <button class="primary" type="submit" disabled={busy}>
          {t('auth.signIn')}
        </button>
      </form>
      <p>
        <Link href="/forgot-password">{t('login.forgot')}</Link>
      </p>
      <p>{tRich('login.newHere', { link: (chunks) => <Link href="/register">{chunks}</Link> })}</p>
    </div>
  );
}
