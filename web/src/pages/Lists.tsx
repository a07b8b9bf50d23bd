import { LIMITS } from '@family-shopping/client';
import { useState } from 'preact/hooks';
import { domain } from '../lib/domain.ts';
import { stores$ } from '../lib/local.ts';
import { useAction, useObservable } from '../lib/hooks.ts';
import { Link, type PageProps } from '../lib/router.tsx';
import { ErrorText } from '../components/Form.tsx';
import { t } from '../lib/i18n.ts';

export function ListsPage({ client }: PageProps) {
  const d = domain(client);
  const [archived, setArchived] = useState(false);
  const lists = useObservable(() => d.lists.summaries$({ archived }), [client, archived], null);
  const stores = useObservable(() => stores$(client), [client], []);
  const [name, setName] = useState('');
  const [storeId, setStoreId] = useState('');
  const { error, run } = useAction();
  const storeName = (id: string | null) => stores.find((s) => s.id === id)?.name;

  const add = (e: Event) => {
    e.preventDefault();
    const n = name.trim();
    if (!n) return;
    void run(async () => {
      await d.lists.create({ name: n, storeId: storeId || null });
      setName('');
    });
  };

  return (
    <>
      <h1>{archived ? t('lists.archivedHeading') : t('lists.heading')}</h1>
      {!archived && (
        <form class="row-form" onSubmit={add}>
          <div class="grow">
            <label class="sr-only" for="new-list">
              {t('lists.new')}
            </label>
            <input
              id="new-list"
              placeholder={t('lists.new')}
              maxLength={LIMITS.listName}
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </div>
          {stores.length > 0 && (
            <select
              aria-label={t('lists.storeForNew')}
              value={storeId}
              onChange={(e) => setStoreId(e.currentTarget.value)}
            >
              <option value="">{t('common.noStore')}</option>
              {stores.map((s) => (
                <option value={s.id}>{s.name}</option>
              ))}
            </select>
          )}
          <button class="primary" type="submit">
            {t('lists.add')}
          </button>
        </form>
      )}
      <ErrorText error={error} />
      {lists === null ? (
        <p aria-busy="true">{t('common.loading')}</p>
      ) : lists.length === 0 ? (
        <p class="empty">{archived ? t('lists.noArchived') : t('lists.empty')}</p>
      ) : (
        <ul class="cards">
          {lists.map((l) => {
            const store = storeName(l.storeId);
            return (
              <li>
                <Link href={`/lists/${l.id}`} class="list-card">
                  <span class="list-name">{l.name}</span>
                  <span class="list-meta">
                    {t('lists.progress', { checked: l.checkedCount, total: l.itemCount })}
                    {store ? ` · ${store}` : ''}
                  </span>
                  <span class="progress" aria-hidden="true">
                    <span style={{ width: `${l.itemCount ? (100 * l.checkedCount) / l.itemCount : 0}%` }} />
                  </span>
                </Link>
                {archived && (
                  <button type="button" onClick={() => void run(() => d.lists.unarchive(l.id))}>
                    {t('lists.unarchiveNamed', { name: l.name })}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <p>
        <button type="button" class="link" onClick={() => setArchived(!archived)}>
          {archived ? t('lists.showCurrent') : t('lists.showArchived')}
        </button>
      </p>
    </>
  );
}
