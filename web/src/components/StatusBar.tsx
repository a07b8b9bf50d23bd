import type { FamilyClient } from '@family-shopping/client';
import { status$ } from '../lib/app.ts';
import { useObservable } from '../lib/hooks.ts';
import { PLAIN_HTTP_NOTICE, plainHttp } from '../lib/secure.ts';

/** Contract §9: "Offline" while the server cannot be reached, "{n} changes waiting" while
 * local changes wait. Always present and of fixed height, so its changes shift nothing. Over
 * plain http its title says what only HTTPS adds (contract §11). */
export function StatusBar({ client }: { client: FamilyClient | null }) {
  const s = useObservable(() => (client ? status$(client) : null), [client], { offline: false, pending: 0 });
  const waiting = s.pending === 1 ? '1 change waiting' : s.pending > 1 ? `${s.pending} changes waiting` : '';
  const text = [s.offline ? 'Offline' : '', waiting].filter(Boolean).join(' · ');
  return (
    <div
      role="status"
      class={`status ${s.offline ? 'status-offline' : ''} ${text ? 'status-shown' : ''}`}
      title={plainHttp ? PLAIN_HTTP_NOTICE : undefined}
    >
      {text}
    </div>
  );
}
