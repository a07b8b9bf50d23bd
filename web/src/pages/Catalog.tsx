/**
 * The family's catalog: its own products, its overrides of the shared (global) products, its
 * own units. Every edit is the SDK's offline domain call (`client.products.*`, `client.units.*`):
 * it works without signal and replication carries it to the server. Deleting a unit in use is
 * refused at once (`unit_in_use`, checked on the device as the server does) and its reason shown.
 */
import { LIMITS, UNIT_CATEGORIES, type UnitCategory } from '@family-shopping/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { PageProps } from '../lib/router.tsx';
import { domain, type Product, type Unit } from '../lib/domain.ts';
import { errorMessage, useAction, useObservable } from '../lib/hooks.ts';
import { ErrorText, Field } from '../components/Form.tsx';
import { categoryLabel, categoryOptions, isCategory, unitCategoryLabel } from '../lib/categories.ts';
import { t } from '../lib/i18n.ts';

function Categories({
  value,
  onChange,
  label,
}: {
  value: UnitCategory[];
  onChange: (v: UnitCategory[]) => void;
  label: string;
}) {
  return (
    <fieldset class="categories">
      <legend>{label}</legend>
      {UNIT_CATEGORIES.map((c) => (
        <label class="check">
          <input
            type="checkbox"
            checked={value.includes(c)}
            onChange={(e) => onChange(e.currentTarget.checked ? [...value, c] : value.filter((x) => x !== c))}
          />
          {unitCategoryLabel(c)}
        </label>
      ))}
    </fieldset>
  );
}

/** A product's shop category (contract §10): places its new items in a section of that
 *  category. '' is none. */
function ShopCategory({ id, value, onChange }: { id: string; value: string; onChange: (v: string) => void }) {
  return (
    <div class="field">
      <label for={id}>{t('catalog.aisle')}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">{t('catalog.none')}</option>
        {categoryOptions().map((c) => (
          <option value={c.key}>{c.label}</option>
        ))}
      </select>
    </div>
  );
}

const categoryOf = (v: string) => (isCategory(v) ? v : null);

export function CatalogPage({ client }: PageProps) {
  const d = domain(client);
  const [q, setQ] = useState('');
  const products = useObservable(
    () => d.products.search$(q.trim(), { limit: 50 }),
    [client, q.trim()],
    [] as Product[],
  );
  const units = useObservable(() => d.units.all$(), [client], [] as Unit[]);
  const [name, setName] = useState('');
  const [flags, setFlags] = useState<UnitCategory[]>([]);
  const [category, setCategory] = useState('');
  const [editing, setEditing] = useState<string | null>(null);
  const { error, run } = useAction();
  const refusals = useRefusals(client, [...products, ...units]);

  return (
    <>
      <h1>{t('nav.catalog')}</h1>
      {refusals.map((text) => (
        <p class="error" role="alert">
          {text}
        </p>
      ))}
      <section class="card">
        <h2>{t('catalog.products')}</h2>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const n = name.trim();
            if (n)
              void run(async () => {
                await d.products.create({ name: n, unitCategoryFlags: flags, category: categoryOf(category) });
                setName('');
                setFlags([]);
                setCategory('');
              });
          }}
        >
          <Field
            label={t('catalog.newProduct')}
            maxLength={LIMITS.productName}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <Categories label={t('catalog.measuredByHint')} value={flags} onChange={setFlags} />
          <ShopCategory id="new-product-category" value={category} onChange={setCategory} />
          <button class="primary" type="submit">
            {t('catalog.addProduct')}
          </button>
        </form>
        <ErrorText error={error} />
        <div class="spaced">
          <Field label={t('catalog.search')} type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
        </div>
        {products.length === 0 && <p class="hint">{q.trim() ? t('catalog.noMatch') : t('catalog.noProducts')}</p>}
        <ul class="rows">
          {products.map((p) =>
            editing === p.id ? (
              <ProductEditor key={p.id} client={client} product={p} onDone={() => setEditing(null)} />
            ) : (
              <li class="row" key={p.id}>
                <span class="grow">
                  {p.name}
                  <small class="tag">
                    {t('catalog.kind', { kind: p.kind === 'family' ? 'family' : p.overridden ? 'changed' : 'shared' })}
                  </small>
                  {p.category && <small class="tag">{categoryLabel(p.category)}</small>}
                  {p.unitCategoryFlags.length > 0 && (
                    <small class="hint"> {p.unitCategoryFlags.map(unitCategoryLabel).join(', ')}</small>
                  )}
                </span>
                <button type="button" onClick={() => setEditing(p.id)}>
                  {t('catalog.editNamed', { name: p.name })}
                </button>
              </li>
            ),
          )}
        </ul>
      </section>
      <UnitsCard client={client} units={units} />
    </>
  );
}

const inUseText = (name: string) => t('catalog.inUse', { name });

/**
 * What the server refused of this device's catalog edits when they arrived (e.g. a unit
 * deleted offline that another member used meanwhile: it comes back). The SDK reverts the local
 * copies; this says why.
 */
function useRefusals(client: PageProps['client'], shown: { id: string; name: string }[]): string[] {
  const names = useRef(new Map<string, string>());
  for (const r of shown) names.current.set(r.id, r.name);
  const [texts, setTexts] = useState<string[]>([]);
  useEffect(
    () =>
      client.on('rejected', (e) => {
        if (e.collection !== 'products' && e.collection !== 'units') return;
        const next = e.rows.map((row) => {
          const name =
            names.current.get(row.id) ?? (e.collection === 'units' ? t('catalog.aUnit') : t('catalog.aProduct'));
          return row.code === 'unit_in_use' ? inUseText(name) : t('catalog.notSaved', { name, reason: row.message });
        });
        setTexts((before) => [...before, ...next]);
      }),
    [client],
  );
  return texts;
}

function ProductEditor({
  client,
  product,
  onDone,
}: {
  client: PageProps['client'];
  product: Product;
  onDone: () => void;
}) {
  const [name, setName] = useState(product.name);
  const [flags, setFlags] = useState<UnitCategory[]>(product.unitCategoryFlags as UnitCategory[]);
  const [category, setCategory] = useState<string>(product.category ?? '');
  const { error, run } = useAction();
  const family = product.kind === 'family';
  return (
    <li class="row editor">
      <form
        class="grow"
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            const changed = categoryOf(category) !== (product.category ?? null);
            await domain(client).products.update(product.id, {
              name: name.trim(),
              unitCategoryFlags: flags,
              ...(changed ? { category: categoryOf(category) } : {}),
            });
            onDone();
          });
        }}
      >
        <Field
          label={t('catalog.productName')}
          required
          maxLength={LIMITS.productName}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <Categories label={t('catalog.measuredBy')} value={flags} onChange={setFlags} />
        <ShopCategory id={`product-category-${product.id}`} value={category} onChange={setCategory} />
        {!family && <p class="hint">{t('catalog.sharedHint')}</p>}
        <ErrorText error={error} />
        <div class="actions">
          <button type="button" onClick={onDone}>
            {t('common.cancel')}
          </button>
          {family && (
            <button
              type="button"
              class="danger"
              onClick={() => void run(async () => (await domain(client).products.delete(product.id), onDone()))}
            >
              {t('catalog.deleteProduct')}
            </button>
          )}
          {!family && product.overridden && (
            <button
              type="button"
              onClick={() => void run(async () => (await domain(client).products.clearOverride(product.id), onDone()))}
            >
              {t('catalog.undoOurs')}
            </button>
          )}
          <button class="primary" type="submit">
            {t('catalog.saveProduct')}
          </button>
        </div>
      </form>
    </li>
  );
}

function UnitsCard({ client, units }: { client: PageProps['client']; units: Unit[] }) {
  const [form, setForm] = useState({ name: '', abbreviation: '', category: 'Count' as UnitCategory });
  const { error, run } = useAction();
  const [problem, setProblem] = useState<{ id: string; message: string } | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const family = units.filter((u) => u.kind === 'family');
  const global = units.filter((u) => u.kind === 'global');
  return (
    <section class="card">
      <h2>{t('catalog.units')}</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            await domain(client).units.create({
              name: form.name.trim(),
              abbreviation: form.abbreviation.trim(),
              category: form.category,
            });
            setForm({ ...form, name: '', abbreviation: '' });
          });
        }}
      >
        <div class="field-row">
          <Field
            label={t('catalog.unitName')}
            required
            maxLength={LIMITS.unitName}
            value={form.name}
            onInput={(e) => setForm({ ...form, name: e.currentTarget.value })}
          />
          <Field
            label={t('catalog.abbreviation')}
            required
            maxLength={LIMITS.abbreviation}
            value={form.abbreviation}
            onInput={(e) => setForm({ ...form, abbreviation: e.currentTarget.value })}
          />
        </div>
        <CategorySelect
          id="unit-category"
          label={t('catalog.category')}
          value={form.category}
          onChange={(category) => setForm({ ...form, category })}
        />
        <ErrorText error={error} />
        <button class="primary" type="submit">
          {t('catalog.addUnit')}
        </button>
      </form>
      <h3>{t('catalog.yourUnits')}</h3>
      {family.length === 0 && <p class="hint">{t('catalog.noneYet')}</p>}
      <ul class="rows">
        {family.map((u) =>
          editing === u.id ? (
            <UnitEditor key={u.id} client={client} unit={u} onDone={() => setEditing(null)} />
          ) : (
            <li class="row" key={u.id}>
              <span class="grow">
                {t('amount.unitOption', { name: u.name, abbreviation: u.abbreviation })}{' '}
                <small class="hint">{unitCategoryLabel(u.category)}</small>
                {problem?.id === u.id && (
                  <span class="error" role="alert">
                    {problem.message}
                  </span>
                )}
              </span>
              <button
                type="button"
                aria-label={t('catalog.editNamed', { name: u.name })}
                onClick={() => setEditing(u.id)}
              >
                {t('catalog.edit')}
              </button>
              <button
                type="button"
                aria-label={t('catalog.deleteNamed', { name: u.name })}
                onClick={() =>
                  void domain(client)
                    .units.delete(u.id)
                    .then(
                      () => setProblem(null),
                      (err) =>
                        setProblem({
                          id: u.id,
                          message: err?.code === 'unit_in_use' ? inUseText(u.name) : errorMessage(err),
                        }),
                    )
                }
              >
                {t('catalog.delete')}
              </button>
            </li>
          ),
        )}
      </ul>
      <details>
        <summary>{t('catalog.sharedUnits', { n: global.length })}</summary>
        <ul class="rows compact">
          {global.map((u) => (
            <li class="row">
              {t('amount.unitOption', { name: u.name, abbreviation: u.abbreviation })}{' '}
              <small class="hint">{unitCategoryLabel(u.category)}</small>
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}

/** A family unit's name, abbreviation and category, edited in place (offline too). */
function UnitEditor({ client, unit, onDone }: { client: PageProps['client']; unit: Unit; onDone: () => void }) {
  const [form, setForm] = useState({
    name: unit.name,
    abbreviation: unit.abbreviation,
    category: unit.category as UnitCategory,
  });
  const { error, run } = useAction();
  return (
    <li class="row editor">
      <form
        class="grow"
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            await domain(client).units.update(unit.id, {
              name: form.name.trim(),
              abbreviation: form.abbreviation.trim(),
              category: form.category,
            });
            onDone();
          });
        }}
      >
        <Field
          label={t('catalog.nameOf', { name: unit.name })}
          required
          maxLength={LIMITS.unitName}
          value={form.name}
          onInput={(e) => setForm({ ...form, name: e.currentTarget.value })}
        />
        <Field
          label={t('catalog.abbreviationOf', { name: unit.name })}
          required
          maxLength={LIMITS.abbreviation}
          value={form.abbreviation}
          onInput={(e) => setForm({ ...form, abbreviation: e.currentTarget.value })}
        />
        <CategorySelect
          id={`unit-category-${unit.id}`}
          label={t('catalog.categoryOf', { name: unit.name })}
          value={form.category}
          onChange={(category) => setForm({ ...form, category })}
        />
        <ErrorText error={error} />
        <div class="actions">
          <button type="button" onClick={onDone}>
            {t('common.cancel')}
          </button>
          <button class="primary" type="submit">
            {t('catalog.saveUnit')}
          </button>
        </div>
      </form>
    </li>
  );
}

/** A unit's category, one of the protocol's `UNIT_CATEGORIES`. */
function CategorySelect(props: {
  id: string;
  label: string;
  value: UnitCategory;
  onChange: (v: UnitCategory) => void;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value as UnitCategory)}>
        {UNIT_CATEGORIES.map((c) => (
          <option value={c}>{unitCategoryLabel(c)}</option>
        ))}
      </select>
    </div>
  );
}
