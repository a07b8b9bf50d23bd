import type { FamilyClient } from '@family-shopping/client';
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../lib/hooks.ts';
import { publicRequest } from '../lib/public-api.ts';
import { Link } from '../lib/router.tsx';

export function ConfirmEmailPage({ params }: { client: FamilyClient; params: Record<string, string> }) {
  const [state, setState] = useState<'working' | 'done' | string>('working');
  useEffect(() => {
    publicRequest('POST', '/api/auth/confirm-email', { token: params.token }).then(
      () => setState('done'),
      (err) =>
        setState(
          err?.code === 'confirmation_invalid'
            ? 'This link is no longer valid. Ask for a new one on your Account page.'
            : errorMessage(err),
        ),
    );
  }, [params.token]);
  return (
    <div class="auth">
      <h1>Confirm email</h1>
      {state === 'working' && <p aria-busy="true">Confirming…</p>}
      {state === 'done' && <p class="notice">Email confirmed</p>}
      {state !== 'working' && state !== 'done' && (
        <p class="error" role="alert">
          {state}
        </p>
      )}
      <p>
        <Link href="/">Open the lists</Link>
      </p>
    </div>
  );
}
