import { LIMITS } from '@family-shopping/client/protocol';
import { useEffect, useState } from 'preact/hooks';
import { errorMessage, useAction } from '../lib/hooks.ts';
import { publicRequest, register } from '../lib/session.ts';
import { Link, navigate } from '../lib/router.tsx';
import { ErrorText, Field } from '../components/Form.tsx';
import { t, tRich } from '../lib/i18n.ts';

interface Invitation {
  email: string;
  familyName: string;
  expiresAt: string;
}

function RegisterForm({ invite, token }: { invite?: Invitation; token?: string }) {
  const [email, setEmail] = useState(invite?.email ?? '');
  const [userName, setUserName] = useState('');
  const [password, setPassword] = useState('');
  const [familyCode, setFamilyCode] = useState('');
  const [newFamily, setNewFamily] = useState(false);
  const [familyName, setFamilyName] = useState('');
  const { busy, error, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const base = { email: email.trim(), userName: userName.trim(), password };
      await register(
        token
          ? { ...base, inviteToken: token }
          : newFamily
            ? { ...base, newFamilyName: familyName.trim() }
            : { ...base, familyCode: familyCode.trim() },
      );
      // The signed-in shell loads and starts replicating (App.tsx).
      navigate('/', { replace: true });
    });
  };
  return (
    <form onSubmit={submit}>
      <Field
        label={t('auth.email')}
        type="email"
        autocomplete="email"
        required
        readOnly={!!invite}
        value={email}
        onInput={(e) => setEmail(e.currentTarget.value)}
      />
      <Field
        label={t('auth.userName')}
        autocomplete="nickname"
        required
        maxLength={LIMITS.userName}
        value={userName}
        onInput={(e) => setUserName(e.currentTarget.value)}
      />
      <Field
        label={t('auth.password')}
        type="password"
        autocomplete="new-password"
        required
        minLength={8}
        hint={t('auth.passwordHint')}
        value={password}
        onInput={(e) => setPassword(e.currentTarget.value)}
      />
      {!invite &&
        (newFamily ? (
          <Field
            label={t('register.familyName')}
            required
            maxLength={LIMITS.familyName}
            value={familyName}
            onInput={(e) => setFamilyName(e.currentTarget.value)}
          />
        ) : (
          <Field
            label={t('register.familyCode')}
            required
            autocomplete="off"
            autocapitalize="off"
            hint={t('register.familyCodeHint')}
            value={familyCode}
            onInput={(e) => setFamilyCode(e.currentTarget.value)}
          />
        ))}
      {!invite && (
        <label class="check">
          <input type="checkbox" checked={newFamily} onChange={(e) => setNewFamily(e.currentTarget.checked)} />
          {t('register.newFamily')}
        </label>
      )}
      <ErrorText error={error} />
      <button class="primary" type="submit" disabled={busy}>
        {t('register.submit')}
      </button>
    </form>
  );
}

export function RegisterPage(_: { params: Record<string, string> }) {
  return (
    <div class="auth">
      <h1>{t('title.register')}</h1>
      <RegisterForm />
      <p>{tRich('register.haveAccount', { link: (chunks) => <Link href="/login">{chunks}</Link> })}</p>
    </div>
  );
}

/** `/invite/{token}`: the link of an invitation email. */
export function InvitePage({ params }: { params: Record<string, string> }) {
  const token = params.token!;
  const [invite, setInvite] = useState<Invitation | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    publicRequest<Invitation>('GET', `/api/auth/invite/${encodeURIComponent(token)}`).then(setInvite, (err) =>
      setProblem(err?.code === 'invitation_invalid' ? t('invite.invalid') : errorMessage(err)),
    );
  }, [token]);
  return (
    <div class="auth">
      <h1>{t('title.invite')}</h1>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {!invite && !problem && <p aria-busy="true">{t('invite.opening')}</p>}
      {invite && (
        <>
          <p class="invite-summary">
            {tRich('invite.summary', {
              family: invite.familyName,
              email: invite.email,
              b: (chunks) => <strong>{chunks}</strong>,
            })}
          </p>
          <RegisterForm invite={invite} token={token} />
        </>
      )}
      <p>{tRich('register.haveAccount', { link: (chunks) => <Link href="/login">{chunks}</Link> })}</p>
    </div>
  );
}
