import type { FamilyClient } from '@family-shopping/client';
import { status$ } from '../lib/app.ts';
import { useObservable } from '../lib/hooks.ts';
import { t } from '../lib/i18n.ts';
import { plainHttp } from '../lib/secure.ts';

/** Contract §9: "Offline" while the server cannot be reached, "{n} changes waiting" while
 * local changes wait. Always present and of fixed height, so its changes shift nothing. Over
 * plain http its title says what only HTTPS adds (contract §11). */
export function StatusBar({ client }: { client: FamilyClient | null }) {
  const s = useObservable(() => (client ? status$(client) : null), [client], { offline: false, pending: 0 });
  const offline = s.offline ? t('status.offline') : '';
  const waiting = s.pending > 0 ? t('status.waiting', { n: s.pending }) : '';
  const text = offline && waiting ? t('status.join', { first: offline, second: waiting }) : offline || waiting;
  return (
    <div
      role="status"
      class={`status ${s.offline ? 'status-offline' : ''} ${text ? 'status-shown' : ''}`}
      title={plainHttp ? t('secure.plainHttp') : undefined}
    >
      {text}
    </div>
  );
}
