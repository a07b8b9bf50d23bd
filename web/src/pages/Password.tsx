import type { FamilyClient } from '@family-shopping/client';
import { useState } from 'preact/hooks';
import { useAction } from '../lib/hooks.ts';
import { publicRequest } from '../lib/public-api.ts';
import { Link } from '../lib/router.tsx';
import { ErrorText, Field } from '../components/Form.tsx';

export function ForgotPasswordPage(_: { client: FamilyClient }) {
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
      <h1>Forgot password</h1>
      <form onSubmit={submit}>
        <Field
          label="Email"
          type="email"
          autocomplete="username"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <ErrorText error={error} />
        <button class="primary" type="submit" disabled={busy}>
          Send reset link
        </button>
      </form>
      {sent && (
        <p class="notice">
          If an account uses that address, a link to set a new password is on its way. It works for 15 minutes.
        </p>
      )}
      <p>
        <Link href="/login">Back to sign in</Link>
      </p>
    </div>
  );
}

export function ResetPasswordPage({ params }: { client: FamilyClient; params: Record<string, string> }) {
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
      <h1>Set a new password</h1>
      {done ? (
        <p class="notice">
          Your password is set. <Link href="/login">Sign in</Link>
        </p>
      ) : (
        <form onSubmit={submit}>
          <Field
            label="New password"
            type="password"
            autocomplete="new-password"
            required
            minLength={8}
            hint="At least 8 characters"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          <ErrorText
            error={
              error?.includes('reset') || error?.includes('token')
                ? 'This link is no longer valid. Ask for a new one.'
                : error
            }
          />
          <button class="primary" type="submit" disabled={busy}>
            Set password
          </button>
        </form>
      )}
      <p>
        <Link href="/forgot-password">Get a new link</Link>
      </p>
    </div>
  );
}
