import { LIMITS, type FamilyClient } from '@family-shopping/client';
import { useEffect, useState } from 'preact/hooks';
import { startReplication } from '../lib/app.ts';
import { errorMessage, useAction } from '../lib/hooks.ts';
import { publicRequest } from '../lib/public-api.ts';
import { Link, navigate } from '../lib/router.tsx';
import { ErrorText, Field } from '../components/Form.tsx';

interface Invitation {
  email: string;
  familyName: string;
  expiresAt: string;
}

function RegisterForm({ client, invite, token }: { client: FamilyClient; invite?: Invitation; token?: string }) {
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
      await client.auth.register(
        token
          ? { ...base, inviteToken: token }
          : newFamily
            ? { ...base, newFamilyName: familyName.trim() }
            : { ...base, familyCode: familyCode.trim() },
      );
      await startReplication();
      navigate('/', { replace: true });
    });
  };
  return (
    <form onSubmit={submit}>
      <Field
        label="Email"
        type="email"
        autocomplete="email"
        required
        readOnly={!!invite}
        value={email}
        onInput={(e) => setEmail(e.currentTarget.value)}
      />
      <Field
        label="User name"
        autocomplete="nickname"
        required
        maxLength={LIMITS.userName}
        value={userName}
        onInput={(e) => setUserName(e.currentTarget.value)}
      />
      <Field
        label="Password"
        type="password"
        autocomplete="new-password"
        required
        minLength={8}
        hint="At least 8 characters"
        value={password}
        onInput={(e) => setPassword(e.currentTarget.value)}
      />
      {!invite &&
        (newFamily ? (
          <Field
            label="Family name"
            required
            maxLength={LIMITS.familyName}
            value={familyName}
            onInput={(e) => setFamilyName(e.currentTarget.value)}
          />
        ) : (
          <Field
            label="Family code"
            required
            autocomplete="off"
            autocapitalize="off"
            hint="Ask someone in your family: it is on their Family page"
            value={familyCode}
            onInput={(e) => setFamilyCode(e.currentTarget.value)}
          />
        ))}
      {!invite && (
        <label class="check">
          <input type="checkbox" checked={newFamily} onChange={(e) => setNewFamily(e.currentTarget.checked)} />
          Start a new family instead
        </label>
      )}
      <ErrorText error={error} />
      <button class="primary" type="submit" disabled={busy}>
        Create account
      </button>
    </form>
  );
}

export function RegisterPage({ client }: { client: FamilyClient }) {
  return (
    <div class="auth">
      <h1>Create account</h1>
      <RegisterForm client={client} />
      <p>
        Already have an account? <Link href="/login">Sign in</Link>
      </p>
    </div>
  );
}

/** `/invite/{token}`: the link of an invitation email. */
export function InvitePage({ client, params }: { client: FamilyClient; params: Record<string, string> }) {
  const token = params.token!;
  const [invite, setInvite] = useState<Invitation | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    publicRequest<Invitation>('GET', `/api/auth/invite/${encodeURIComponent(token)}`).then(setInvite, (err) =>
      setProblem(
        err?.code === 'invitation_invalid'
          ? 'This invitation is no longer valid. Ask for a new one.'
          : errorMessage(err),
      ),
    );
  }, [token]);
  return (
    <div class="auth">
      <h1>Join your family</h1>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {!invite && !problem && <p aria-busy="true">Opening the invitation…</p>}
      {invite && (
        <>
          <p class="invite-summary">
            You are invited to <strong>{invite.familyName}</strong> as <strong>{invite.email}</strong>.
          </p>
          <RegisterForm client={client} invite={invite} token={token} />
        </>
      )}
      <p>
        Already have an account? <Link href="/login">Sign in</Link>
      </p>
    </div>
  );
}
