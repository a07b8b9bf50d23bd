import { useState } from 'preact/hooks';
import { useAction } from '../lib/hooks.ts';
import { publicRequest } from '../lib/session.ts';
import { Link } from '../lib/router.tsx';
import { ErrorText, Field } from '../components/Form.tsx';
import { t, tRich } from '../lib/i18n.ts';

export function ForgotPasswordPage(_: { params: Record<string, string> }) {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const { busy, error, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      await publicRequest('POST', '/api/auth/forgot-password', { email: email.trim() });
      setSent(true);
    });
  };
  return (
    <div class="auth">
      <h1>{t('title.forgotPassword')}</h1>
      <form onSubmit={submit}>
        <Field
          label={t('auth.email')}
          type="email"
          autocomplete="username"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <ErrorText error={error} />
        <button class="primary" type="submit" disabled={busy}>
          {t('forgot.send')}
        </button>
      </form>
      {sent && <p class="notice">{t('forgot.sent')}</p>}
      <p>
        <Link href="/login">{t('forgot.back')}</Link>
      </p>
    </div>
  );
}

export function ResetPasswordPage({ params }: { params: Record<string, string> }) {
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const { busy, error, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      await publicRequest('POST', '/api/auth/reset-password', { token: params.token, newPassword: password });
      setDone(true);
    });
  };
  return (
    <div class="auth">
      <h1>{t('title.resetPassword')}</h1>
      {done ? (
        <p class="notice">{tRich('reset.done', { link: (chunks) => <Link href="/login">{chunks}</Link> })}</p>
      ) : (
        <form onSubmit={submit}>
          <Field
            label={t('auth.newPassword')}
            type="password"
            autocomplete="new-password"
            required
            minLength={8}
            hint={t('auth.passwordHint')}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          <ErrorText error={error?.includes('reset') || error?.includes('token') ? t('auth.linkInvalid') : error} />
          <button class="primary" type="submit" disabled={busy}>
            {t('reset.submit')}
          </button>
        </form>
      )}
      <p>
        <Link href="/forgot-password">{t('reset.newLink')}</Link>
      </p>
    </div>
  );
}
