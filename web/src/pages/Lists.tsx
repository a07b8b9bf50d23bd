import { LIMITS } from '@family-shopping/client';
import { useState } from 'preact/hooks';
import { domain } from '../lib/domain.ts';
import { stores$ } from '../lib/local.ts';
import { useAction, useObservable } from '../lib/hooks.ts';
import { Link, type PageProps } from '../lib/router.tsx';
import { ErrorText } from '../components/Form.tsx';

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
      <h1>{archived ? 'Archived lists' : 'Lists'}</h1>
      {!archived && (
        <form class="row-form" onSubmit={add}>
          <div class="grow">
            <label class="sr-only" for="new-list">
              New list
            </label>
            <input
              id="new-list"
              placeholder="New list"
              maxLength={LIMITS.listName}
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </div>
          {stores.length > 0 && (
            <select
              aria-label="Store for the new list"
              value={storeId}
              onChange={(e) => setStoreId(e.currentTarget.value)}
            >
              <option value="">No store</option>
              {stores.map((s) => (
                <option value={s.id}>{s.name}</option>
              ))}
            </select>
          )}
          <button class="primary" type="submit">
            Add list
          </button>
        </form>
      )}
      <ErrorText error={error} />
      {lists === null ? (
        <p aria-busy="true">Loading…</p>
      ) : lists.length === 0 ? (
        <p class="empty">{archived ? 'No archived lists.' : 'No lists yet. Name one above, e.g. “Groceries”.'}</p>
      ) : (
        <ul class="cards">
          {lists.map((l) => {
            const store = storeName(l.storeId);
            return (
              <li>
                <Link href={`/lists/${l.id}`} class="list-card">
                  <span class="list-name">{l.name}</span>
                  <span class="list-meta">
                    {l.checkedCount} of {l.itemCount} checked
                    {store ? ` · ${store}` : ''}
                  </span>
                  <span class="progress" aria-hidden="true">
                    <span style={{ width: `${l.itemCount ? (100 * l.checkedCount) / l.itemCount : 0}%` }} />
                  </span>
                </Link>
                {archived && (
                  <button type="button" onClick={() => void run(() => d.lists.unarchive(l.id))}>
                    Unarchive {l.name}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <p>
        <button type="button" class="link" onClick={() => setArchived(!archived)}>
          {archived ? 'Show current lists' : 'Show archived lists'}
        </button>
      </p>
    </>
  );
}
