import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../lib/hooks.ts';
import { publicRequest } from '../lib/session.ts';
import { Link } from '../lib/router.tsx';
import { t } from '../lib/i18n.ts';

export function ConfirmEmailPage({ params }: { params: Record<string, string> }) {
  const [state, setState] = useState<'working' | 'done' | string>('working');
  useEffect(() => {
    publicRequest('POST', '/api/auth/confirm-email', { token: params.token }).then(
      () => setState('done'),
      (err) => setState(err?.code === 'confirmation_invalid' ? t('confirm.invalid') : errorMessage(err)),
    );
  }, [params.token]);
  return (
    <div class="auth">
      <h1>{t('title.confirmEmail')}</h1>
      {state === 'working' && <p aria-busy="true">{t('confirm.working')}</p>}
      {state === 'done' && <p class="notice">{t('confirm.done')}</p>}
      {state !== 'working' && state !== 'done' && (
        <p class="error" role="alert">
          {state}
        </p>
      )}
      <p>
        <Link href="/">{t('confirm.openLists')}</Link>
      </p>
    </div>
  );
}
