import { LIMITS, type Placement, type Suggestion } from '@family-shopping/client';
import { Component, createRef } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { domain, type Item, type ListDetail, type Unit } from '../lib/domain.ts';
import { placement$, stores$, type StoreWithSections } from '../lib/local.ts';
import { useAction, useObservable } from '../lib/hooks.ts';
import { Link, navigate, type PageProps } from '../lib/router.tsx';
import { ErrorText, Field } from '../components/Form.tsx';
import { locale, t } from '../lib/i18n.ts';
import {
  AmountFields,
  EMPTY_AMOUNT,
  amountInput,
  amountOf,
  formatAmount,
  type Amount,
} from '../components/ItemFields.tsx';
import { ProductInput, productFor, productIds, useSuggestions, type Named } from '../components/ProductInput.tsx';

/** What the snackbar's "Undo" takes back: one removal, or the last "Clear checked items". */
type Undoable = { kind: 'removed'; item: Item } | { kind: 'cleared'; items: Item[] };

/** Ids per `restoreMany` call (contract §10: 1–500). */
const RESTORE_BATCH = 500;

/** Rows a list opens with (more than a tall screen holds); a longer list's other rows are
 *  rendered once that first frame is painted (docs/web.md "Long lists"). */
const FIRST_ROWS = 100;

export function ListPage({ client, params }: PageProps) {
  const d = domain(client);
  const listId = params.listId!;
  const detail = useObservable<ListDetail | null | undefined>(
    () => d.lists.detail$(listId),
    [client, listId],
    undefined,
  );
  const stores = useObservable(() => stores$(client), [client], []);
  const units = useObservable(() => d.units.all$(), [client], [] as Unit[]);
  const [undo, setUndo] = useState<Undoable | null>(null);
  const [editing, setEditing] = useState<Item | null>(null);
  const { error, run } = useAction();
  // One set of row actions per list (not three closures per item and render): rows re-render
  // only when their own item changes (ItemRow).
  const actions = useMemo<RowActions>(
    () => ({
      toggle: (item) => void run(() => d.items.toggle(listId, item.id)),
      edit: (item) => setEditing(item),
      remove: (item) =>
        void run(async () => {
          await d.items.remove(listId, item.id);
          setUndo({ kind: 'removed', item });
        }),
    }),
    [client, listId],
  );

  // A single removal can be undone for 10 seconds; a clear until the next removal or clear, or
  // until the page is left (docs/web.md).
  useEffect(() => {
    if (undo?.kind !== 'removed') return;
    const t = setTimeout(() => setUndo(null), 10_000);
    return () => clearTimeout(t);
  }, [undo]);
  useEffect(() => setUndo(null), [listId]);

  // A long list opens with its first rows; the rest follow once that frame is painted. Only
  // when it opens: a list that grows past FIRST_ROWS while shown stays whole.
  const total = detail ? detail.groups.reduce((n, g) => n + g.items.length, 0) : 0;
  const [completeFor, setCompleteFor] = useState<string | null>(null);
  const opening = !!detail && completeFor !== listId;
  const partial = opening && total > FIRST_ROWS;
  useEffect(() => {
    if (!opening) return;
    if (!partial) return setCompleteFor(listId);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => (timer = setTimeout(() => setCompleteFor(listId))));
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [opening, partial, listId]);

  if (detail === undefined) return <p aria-busy="true">{t('common.loading')}</p>;
  if (detail === null) {
    return (
      <>
        <h1>{t('list.notFound')}</h1>
        <p>
          {t('list.notFoundText')} <Link href="/">{t('app.backToLists')}</Link>
        </p>
      </>
    );
  }
  const store = stores.find((s) => s.id === detail.storeId) ?? null;
  const checked = detail.groups.reduce((n, g) => n + g.items.filter((i) => i.checked).length, 0);

  return (
    <>
      <div class="list-head">
        <h1>{detail.name}</h1>
        <div class="list-meta-row">
          <p class="list-meta">
            {t('lists.progress', { checked, total })}
            {store ? ` · ${store.name}` : ''}
            {detail.archivedAt ? ` · ${t('list.archivedTag')}` : ''}
          </p>
          {checked > 0 && (
            <button
              type="button"
              class="small"
              onClick={() =>
                void run(async () => {
                  const items = await d.lists.clearChecked(listId);
                  if (items.length > 0) setUndo({ kind: 'cleared', items });
                })
              }
            >
              {t('list.clearChecked')}
            </button>
          )}
        </div>
      </div>
      <AddItem client={client} listId={listId} units={units} store={store} />
      <ErrorText error={error} />
      {total === 0 && <p class="empty">{t('list.empty')}</p>}
      {shownGroups(detail.groups, partial ? FIRST_ROWS : total).map((g) => (
        <section class="group" key={g.sectionId ?? 'none'}>
          <h2>{g.sectionId === null ? t('list.uncategorized') : g.name}</h2>
          <ul class="items">
            {g.items.map((item) => (
              <ItemRow key={item.id} item={item} units={units} actions={actions} />
            ))}
          </ul>
        </section>
      ))}
      <ListSettings client={client} detail={detail} stores={stores} />
      <div class="snackbar-slot">
        {undo && (
          <div class="snackbar">
            <span>
              {undo.kind === 'removed'
                ? t('list.removed', { name: undo.item.name })
                : t('list.cleared', { n: undo.items.length })}
            </span>
            <button
              type="button"
              onClick={() =>
                void run(async () => {
                  const u = undo;
                  setUndo(null);
                  if (u.kind === 'removed') await d.items.restore(listId, u.item.id);
                  else
                    for (let i = 0; i < u.items.length; i += RESTORE_BATCH)
                      await d.items.restoreMany(
                        listId,
                        u.items.slice(i, i + RESTORE_BATCH).map((it) => it.id),
                      );
                })
              }
            >
              {t('common.undo')}
            </button>
          </div>
        )}
      </div>
      {editing && (
        <EditItem
          client={client}
          listId={listId}
          item={editing}
          store={store}
          units={units}
          onClose={() => setEditing(null)}
        />
      )}
    </>
  );
}

/** The groups' first `rows` items, in order (groups left empty left out). */
function shownGroups(groups: ListDetail['groups'], rows: number): ListDetail['groups'] {
  const out: ListDetail['groups'] = [];
  for (const g of groups) {
    if (rows <= 0) break;
    out.push(g.items.length <= rows ? g : { ...g, items: g.items.slice(0, rows) });
    rows -= g.items.length;
  }
  return out;
}

/** What an item's row does, one object for the whole list. */
interface RowActions {
  toggle(item: Item): void;
  edit(item: Item): void;
  remove(item: Item): void;
}

interface RowProps {
  item: Item;
  units: Unit[];
  actions: RowActions;
}

/** The same values field by field (a list view emits new item objects on every change). */
function sameItem(a: Item, b: Item): boolean {
  if (a === b) return true;
  for (const k in a) if (a[k as keyof Item] !== b[k as keyof Item]) return false;
  return true;
}

/**
 * One item. It renders again only when its own item, the units or the language changed, so a
 * tap on one item of a long list does not re-render the others. The checkbox shows the tap at
 * once (the local write follows a moment later): `tapped` holds the state shown while the item
 * still has the state it was tapped in.
 */
class ItemRow extends Component<RowProps, { tapped: { from: boolean; to: boolean } | null }> {
  state = { tapped: null as { from: boolean; to: boolean } | null };
  private lang = locale();
  private row = createRef<HTMLLIElement>();

  shouldComponentUpdate(next: RowProps, state: this['state']): boolean {
    return (
      state.tapped !== this.state.tapped ||
      next.units !== this.props.units ||
      next.actions !== this.props.actions ||
      this.lang !== locale() ||
      !sameItem(next.item, this.props.item)
    );
  }

  // A checked item moves to the end of its section (contract §10's order): the move takes the
  // focus from its checkbox, so a keyboard user's next Space would go nowhere. Given back.
  getSnapshotBeforeUpdate(): Element | null {
    const active = document.activeElement;
    return active && this.row.current?.contains(active) ? active : null;
  }

  componentDidUpdate(_p: RowProps, _s: this['state'], focused: Element | null): void {
    if (focused instanceof HTMLElement && focused.isConnected && document.activeElement !== focused) focused.focus();
  }

  private toggle = () => {
    const { item, actions } = this.props;
    this.setState({ tapped: { from: item.checked, to: !this.checked() } });
    actions.toggle(item);
  };
  private edit = () => this.props.actions.edit(this.props.item);
  private remove = () => this.props.actions.remove(this.props.item);

  private checked(): boolean {
    const { tapped } = this.state;
    return tapped && tapped.from === this.props.item.checked ? tapped.to : this.props.item.checked;
  }

  render({ item, units }: RowProps) {
    this.lang = locale();
    const checked = this.checked();
    const amount = formatAmount(item, units);
    const id = `item-${item.id}`;
    return (
      <li ref={this.row} class={checked ? 'item checked' : 'item'}>
        <input type="checkbox" id={id} aria-label={item.name} checked={checked} onChange={this.toggle} />
        <label for={id} class="item-text">
          <span class="item-name">{item.name}</span>
          {amount && <span class="item-amount">{amount}</span>}
        </label>
        <button type="button" class="icon" aria-label={t('list.editNamed', { name: item.name })} onClick={this.edit}>
          ✎
        </button>
        <button
          type="button"
          class="icon"
          aria-label={t('list.removeNamed', { name: item.name })}
          onClick={this.remove}
        >
          ×
        </button>
      </li>
    );
  }
}

const UNPLACED: Placement = { sectionId: null, by: 'none' };

/**
 * The add form. With a store, a "Section" picker appears once a name is typed, preselecting
 * where the SDK will place the item (contract §10: remembered section, else the first section
 * of the product's category, else none); the item is sent without a section unless the picker
 * was changed, so a placement by category stays one (it writes no section memory).
 */
function AddItem({
  client,
  listId,
  units,
  store,
}: {
  client: PageProps['client'];
  listId: string;
  units: Unit[];
  store: StoreWithSections | null;
}) {
  const d = domain(client);
  const [named, setNamed] = useState<Named>({ name: '', product: null });
  const [amount, setAmount] = useState<Amount>(EMPTY_AMOUNT);
  const [more, setMore] = useState(false);
  /** A section picked by hand, for the name it was picked for ('' = Uncategorized). */
  const [picked, setPicked] = useState<{ name: string; sectionId: string } | null>(null);
  const suggestions = useSuggestions(client, named.name);
  const { error, run } = useAction();
  const product = productFor(named, suggestions);
  const storeId = store?.id ?? null;
  const placement = useObservable(
    () => placement$(client, storeId, product),
    [client, storeId, product?.id, product?.category],
    UNPLACED,
  );
  const key = named.name.trim().toLowerCase();
  const explicit = picked && picked.name === key ? picked.sectionId : undefined;
  const sectionShown = explicit ?? placement.sectionId ?? '';
  const submit = (e: Event) => {
    e.preventDefault();
    const name = named.name.trim();
    if (!name) return;
    void run(async () => {
      const item = await d.items.add(listId, {
        name,
        ...productIds(product),
        ...amountInput(amount, units),
        ...(storeId && explicit ? { sectionId: explicit } : {}),
      });
      // "Uncategorized" chosen by hand where the placement would have put it in a section.
      if (explicit === '' && item.sectionId) await d.items.update(listId, item.id, { sectionId: null });
      setNamed({ name: '', product: null });
      setAmount(EMPTY_AMOUNT);
      setPicked(null);
      document.getElementById('add-item')?.focus();
    });
  };
  return (
    <>
      <form class="add-item" onSubmit={submit}>
        <div class="row-form">
          <ProductInput
            id="add-item"
            label={t('list.addItem')}
            value={named}
            onChange={setNamed}
            suggestions={suggestions}
          />
          <button class="primary" type="submit">
            {t('common.add')}
          </button>
        </div>
        {store && key !== '' && (
          <div class="inline-field">
            <label for="add-section">{t('list.section')}</label>
            <select
              id="add-section"
              value={sectionShown}
              onChange={(e) => setPicked({ name: key, sectionId: e.currentTarget.value })}
            >
              <option value="">{t('list.uncategorized')}</option>
              {store.sections.map((s) => (
                <option value={s.id}>{s.name}</option>
              ))}
            </select>
          </div>
        )}
        <details open={more} onToggle={(e) => setMore((e.currentTarget as HTMLDetailsElement).open)}>
          <summary>{t('list.amountDetails')}</summary>
          <AmountFields value={amount} onChange={setAmount} units={units} product={product} />
        </details>
        <ErrorText error={error} />
      </form>
      {key === '' && <Suggestions client={client} listId={listId} units={units} />}
    </>
  );
}

/**
 * What the family buys that is not on this list (contract §10 "Suggestions"), most frequent
 * first; one tap adds it as it was last added. Hidden while a name is being typed (the product
 * matches are the suggestions then) and when there are none.
 */
function Suggestions({ client, listId, units }: { client: PageProps['client']; listId: string; units: Unit[] }) {
  const d = domain(client);
  const suggestions = useObservable<Suggestion[]>(() => d.lists.suggestions$(listId), [client, listId], []);
  const { error, run } = useAction();
  if (suggestions.length === 0) return null;
  return (
    <section class="suggested" aria-labelledby="suggested-title">
      <p id="suggested-title" class="suggested-title">
        {t('list.suggestions')}
      </p>
      <ul class="chips">
        {suggestions.map((s) => {
          const amount = formatAmount(s, units);
          return (
            <li key={`${s.productId ?? s.familyProductId ?? ''}:${s.name}`} class="chip">
              <span aria-hidden="true" class="chip-plus">
                +
              </span>
              <button
                type="button"
                aria-label={t('list.addNamed', { name: s.name })}
                onClick={() =>
                  void run(() =>
                    d.items.add(listId, {
                      name: s.name,
                      productId: s.productId,
                      familyProductId: s.familyProductId,
                      quantity: s.quantity,
                      unitOfMeasureId: s.unitOfMeasureId,
                      familyUnitOfMeasureId: s.familyUnitOfMeasureId,
                      isApproximate: s.isApproximate,
                      quantityNote: s.quantityNote,
                    }),
                  )
                }
              >
                <span class="chip-name">{s.name}</span>
              </button>
              {amount && <span class="chip-amount">{amount}</span>}
            </li>
          );
        })}
      </ul>
      <ErrorText error={error} />
    </section>
  );
}

function EditItem({
  client,
  listId,
  item,
  store,
  units,
  onClose,
}: {
  client: PageProps['client'];
  listId: string;
  item: Item;
  store: StoreWithSections | null;
  units: Unit[];
  onClose: () => void;
}) {
  const d = domain(client);
  const ref = useRef<HTMLDialogElement>(null);
  const [named, setNamed] = useState<Named>({ name: item.name, product: null });
  const [amount, setAmount] = useState<Amount>(amountOf(item));
  const [sectionId, setSectionId] = useState(item.sectionId ?? '');
  const suggestions = useSuggestions(client, named.name);
  const { error, run } = useAction();
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  const linked = suggestions.find((p) => p.id === (item.productId ?? item.familyProductId)) ?? null;
  const product = productFor(named, suggestions) ?? (named.name === item.name ? linked : null);
  const save = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const renamed = named.name.trim() !== item.name;
      await d.items.update(listId, item.id, {
        name: named.name.trim(),
        ...(renamed ? productIds(product) : {}),
        ...amountInput(amount, units),
        ...(store ? { sectionId: sectionId || null } : {}),
      });
      onClose();
    });
  };
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="edit-title" onClose={onClose}>
      <form onSubmit={save}>
        <h2 id="edit-title">{t('list.editNamed', { name: item.name })}</h2>
        <div class="field">
          <ProductInput
            id="edit-name"
            label={t('common.name')}
            showLabel
            value={named}
            onChange={setNamed}
            suggestions={suggestions}
          />
        </div>
        <AmountFields value={amount} onChange={setAmount} units={units} product={product ?? linked} />
        {store && (
          <div class="field">
            <label for="edit-section">{t('list.section')}</label>
            <select id="edit-section" value={sectionId} onChange={(e) => setSectionId(e.currentTarget.value)}>
              <option value="">{t('list.uncategorized')}</option>
              {store.sections.map((s) => (
                <option value={s.id}>{s.name}</option>
              ))}
            </select>
          </div>
        )}
        <ErrorText error={error} />
        <div class="actions">
          <button type="button" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <button class="primary" type="submit">
            {t('common.save')}
          </button>
        </div>
      </form>
    </dialog>
  );
}

function ListSettings({
  client,
  detail,
  stores,
}: {
  client: PageProps['client'];
  detail: ListDetail;
  stores: StoreWithSections[];
}) {
  const d = domain(client);
  const [name, setName] = useState(detail.name);
  const { error, run } = useAction();
  return (
    <details class="settings">
      <summary>{t('list.settings')}</summary>
      <form
        class="row-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim()) void run(() => d.lists.update(detail.id, { name: name.trim() }));
        }}
      >
        <div class="grow">
          <Field
            label={t('list.name')}
            required
            maxLength={LIMITS.listName}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </div>
        <button type="submit">{t('common.rename')}</button>
      </form>
      <div class="field">
        <label for="list-store">{t('common.store')}</label>
        <select
          id="list-store"
          value={detail.storeId ?? ''}
          onChange={(e) => void run(() => d.lists.update(detail.id, { storeId: e.currentTarget.value || null }))}
        >
          <option value="">{t('common.noStore')}</option>
          {stores.map((s) => (
            <option value={s.id}>{s.name}</option>
          ))}
        </select>
      </div>
      <div class="actions">
        {detail.archivedAt ? (
          <button type="button" onClick={() => void run(() => d.lists.unarchive(detail.id))}>
            {t('common.unarchive')}
          </button>
        ) : (
          <button
            type="button"
            onClick={() =>
              void run(async () => {
                await d.lists.archive(detail.id);
                navigate('/');
              })
            }
          >
            {t('common.archive')}
          </button>
        )}
        <button
          type="button"
          class="danger"
          onClick={() =>
            confirm(t('list.deleteConfirm', { name: detail.name })) &&
            void run(async () => {
              await d.lists.delete(detail.id);
              navigate('/');
            })
          }
        >
          {t('list.delete')}
        </button>
      </div>
      <ErrorText error={error} />
    </details>
  );
}
