import { LIMITS } from '@family-shopping/client';
import { useRef, useState } from 'preact/hooks';
import type { PageProps } from '../lib/router.tsx';
import { domain, type Section } from '../lib/domain.ts';
import { stores$, type StoreWithSections } from '../lib/local.ts';
import { useAction, useObservable } from '../lib/hooks.ts';
import { ErrorText } from '../components/Form.tsx';
import { categoryLabel, categoryOptions, isCategory } from '../lib/categories.ts';
import { t } from '../lib/i18n.ts';

export function StoresPage({ client, session }: PageProps) {
  const d = domain(client);
  const stores = useObservable(() => stores$(client), [client], null);
  const [name, setName] = useState('');
  const { error, run } = useAction();
  const admin = session.role === 'admin';
  return (
    <>
      <h1>{t('nav.stores')}</h1>
      <form
        class="row-form"
        onSubmit={(e) => {
          e.preventDefault();
          const n = name.trim();
          if (n) void run(async () => (await d.stores.create({ name: n }), setName('')));
        }}
      >
        <div class="grow">
          <label class="sr-only" for="new-store">
            {t('stores.new')}
          </label>
          <input
            id="new-store"
            placeholder={t('stores.new')}
            maxLength={LIMITS.storeName}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </div>
        <button class="primary" type="submit">
          {t('stores.add')}
        </button>
      </form>
      <ErrorText error={error} />
      {stores?.length === 0 && <p class="empty">{t('stores.empty')}</p>}
      {stores?.map((s) => (
        <StoreCard key={s.id} client={client} store={s} admin={admin} />
      ))}
    </>
  );
}

function StoreCard({
  client,
  store,
  admin,
}: {
  client: PageProps['client'];
  store: StoreWithSections;
  admin: boolean;
}) {
  const d = domain(client);
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(store.name);
  const [section, setSection] = useState('');
  const { error, run } = useAction();
  const order = store.sections.map((s) => s.id);
  const move = (from: number, to: number) => {
    if (to < 0 || to >= order.length || from === to) return;
    const next = [...order];
    const [id] = next.splice(from, 1);
    next.splice(to, 0, id!);
    void run(() => d.sections.reorder(store.id, next));
  };
  return (
    <section class="card" aria-labelledby={`store-${store.id}`}>
      <div class="card-head">
        <h2 id={`store-${store.id}`}>{store.name}</h2>
        <button
          type="button"
          aria-label={t('stores.renameNamed', { name: store.name })}
          onClick={() => setRenaming(!renaming)}
          aria-expanded={renaming}
        >
          {t('common.rename')}
        </button>
      </div>
      {renaming && (
        <form
          class="row-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (name.trim())
              void run(async () => (await d.stores.update(store.id, { name: name.trim() }), setRenaming(false)));
          }}
        >
          <div class="grow">
            <label class="sr-only" for={`store-name-${store.id}`}>
              {t('stores.storeName')}
            </label>
            <input
              id={`store-name-${store.id}`}
              value={name}
              maxLength={LIMITS.storeName}
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </div>
          <button type="submit" class="primary">
            {t('common.save')}
          </button>
        </form>
      )}
      <h3>{t('stores.sections')}</h3>
      {admin ? (
        <SectionList client={client} store={store} onMove={move} run={run} />
      ) : (
        <ol class="sections">
          {store.sections.map((s) => (
            <li class="section-row">
              <span class="grow">
                <span class="section-name">{s.name}</span>
                {s.category && <span class="tag">{categoryLabel(s.category)}</span>}
              </span>
            </li>
          ))}
        </ol>
      )}
      {admin && (
        <form
          class="row-form"
          onSubmit={(e) => {
            e.preventDefault();
            const n = section.trim();
            if (n) void run(async () => (await d.sections.add(store.id, { name: n }), setSection('')));
          }}
        >
          <div class="grow">
            <label class="sr-only" for={`new-section-${store.id}`}>
              {t('stores.newSection')}
            </label>
            <input
              id={`new-section-${store.id}`}
              placeholder={t('stores.newSection')}
              maxLength={LIMITS.sectionName}
              value={section}
              onInput={(e) => setSection(e.currentTarget.value)}
            />
          </div>
          <button type="submit">{t('stores.addSection')}</button>
        </form>
      )}
      {!admin && <p class="hint">{t('stores.adminOnly')}</p>}
      <ErrorText error={error} />
      <div class="actions">
        <button
          type="button"
          class="danger"
          aria-label={t('stores.deleteNamed', { name: store.name })}
          onClick={() =>
            confirm(t('stores.deleteConfirm', { name: store.name })) && void run(() => d.stores.delete(store.id))
          }
        >
          {t('stores.delete')}
        </button>
      </div>
    </section>
  );
}

/** Sections, reordered by dragging the handle (pointer: mouse and touch) or with the Move
 * up / Move down buttons (keyboard, screen readers); each with its shop category (contract
 * §10), which places new items of products of that category. */
function SectionList({
  client,
  store,
  onMove,
  run,
}: {
  client: PageProps['client'];
  store: StoreWithSections;
  onMove: (from: number, to: number) => void;
  run: ReturnType<typeof useAction>['run'];
}) {
  const d = domain(client);
  const listRef = useRef<HTMLOListElement>(null);
  const [drag, setDrag] = useState<{ from: number; over: number } | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [name, setName] = useState('');

  const indexAt = (y: number) => {
    const rows = [...(listRef.current?.children ?? [])] as HTMLElement[];
    const i = rows.findIndex((r) => {
      const b = r.getBoundingClientRect();
      return y < b.top + b.height / 2;
    });
    return i === -1 ? rows.length - 1 : i;
  };

  return (
    <ol class="sections" ref={listRef}>
      {store.sections.map((s: Section, i) => (
        <li
          class={`section-row editable ${drag?.over === i ? 'drop-target' : ''} ${drag?.from === i ? 'dragging' : ''}`}
          key={s.id}
        >
          <span
            class="handle"
            aria-hidden="true"
            onPointerDown={(e) => {
              (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
              setDrag({ from: i, over: i });
            }}
            onPointerMove={(e) => drag && setDrag({ ...drag, over: indexAt(e.clientY) })}
            onPointerUp={() => {
              if (drag) onMove(drag.from, drag.over);
              setDrag(null);
            }}
            onPointerCancel={() => setDrag(null)}
          >
            ⋮⋮
          </span>
          {editing === s.id ? (
            <form
              class="row-form"
              onSubmit={(e) => {
                e.preventDefault();
                if (name.trim())
                  void run(
                    async () => (await d.sections.update(store.id, s.id, { name: name.trim() }), setEditing(null)),
                  );
              }}
            >
              <label class="sr-only" for={`section-${s.id}`}>
                {t('stores.sectionName')}
              </label>
              <input
                id={`section-${s.id}`}
                class="grow"
                value={name}
                maxLength={LIMITS.sectionName}
                onInput={(e) => setName(e.currentTarget.value)}
              />
              <button type="submit">{t('common.save')}</button>
            </form>
          ) : (
            <span class="section-name">{s.name}</span>
          )}
          <select
            class="category"
            aria-label={t('stores.categoryOf', { name: s.name })}
            value={s.category ?? ''}
            onChange={(e) => {
              const v = e.currentTarget.value;
              void run(() => d.sections.update(store.id, s.id, { category: isCategory(v) ? v : null }));
            }}
          >
            <option value="">{t('stores.noCategory')}</option>
            {categoryOptions().map((c) => (
              <option value={c.key}>{c.label}</option>
            ))}
          </select>
          <span class="row-actions">
            <button
              type="button"
              class="icon"
              aria-label={t('stores.moveUp', { name: s.name })}
              disabled={i === 0}
              onClick={() => onMove(i, i - 1)}
            >
              ↑
            </button>
            <button
              type="button"
              class="icon"
              aria-label={t('stores.moveDown', { name: s.name })}
              disabled={i === store.sections.length - 1}
              onClick={() => onMove(i, i + 1)}
            >
              ↓
            </button>
            <button
              type="button"
              class="icon"
              aria-label={t('stores.renameNamed', { name: s.name })}
              onClick={() => {
                setEditing(s.id);
                setName(s.name);
              }}
            >
              ✎
            </button>
            <button
              type="button"
              class="icon"
              aria-label={t('stores.deleteSection', { name: s.name })}
              onClick={() =>
                confirm(t('stores.deleteSectionConfirm', { name: s.name })) &&
                void run(() => d.sections.delete(store.id, s.id))
              }
            >
              ×
            </button>
          </span>
        </li>
      ))}
    </ol>
  );
}
