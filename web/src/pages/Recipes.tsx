import { LIMITS } from '@family-shopping/client';
import { useState } from 'preact/hooks';
import { domain, type ListSummary, type Unit } from '../lib/domain.ts';
import { recipe$, recipes$ } from '../lib/local.ts';
import { useAction, useObservable } from '../lib/hooks.ts';
import { Link, navigate, type PageProps } from '../lib/router.tsx';
import { ErrorText, Field } from '../components/Form.tsx';
import { AmountFields, EMPTY_AMOUNT, amountInput, formatAmount, type Amount } from '../components/ItemFields.tsx';
import { ProductInput, productFor, productIds, useSuggestions, type Named } from '../components/ProductInput.tsx';
import { t, tRich } from '../lib/i18n.ts';

export function RecipesPage({ client }: PageProps) {
  const d = domain(client);
  const recipes = useObservable(() => recipes$(client), [client], null);
  const [name, setName] = useState('');
  const { error, run } = useAction();
  return (
    <>
      <h1>{t('nav.recipes')}</h1>
      <form
        class="row-form"
        onSubmit={(e) => {
          e.preventDefault();
          const n = name.trim();
          if (n)
            void run(async () => {
              const r = await d.recipes.create({ name: n });
              setName('');
              navigate(`/recipes/${r.id}`);
            });
        }}
      >
        <div class="grow">
          <label class="sr-only" for="new-recipe">
            {t('recipes.new')}
          </label>
          <input
            id="new-recipe"
            placeholder={t('recipes.new')}
            maxLength={LIMITS.recipeName}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </div>
        <button class="primary" type="submit">
          {t('recipes.add')}
        </button>
      </form>
      <ErrorText error={error} />
      {recipes?.length === 0 && <p class="empty">{t('recipes.empty')}</p>}
      <ul class="cards">
        {recipes?.map((r) => (
          <li>
            <Link href={`/recipes/${r.id}`} class="list-card">
              <span class="list-name">{r.name}</span>
              <span class="list-meta">
                {t('recipes.ingredientCount', { n: r.ingredientCount })}
                {r.servings ? ` · ${t('recipes.servesLower', { n: r.servings })}` : ''}
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </>
  );
}

export function RecipePage({ client, params }: PageProps) {
  const d = domain(client);
  const id = params.recipeId!;
  const recipe = useObservable(() => recipe$(client, id), [client, id], undefined);
  const units = useObservable(() => d.units.all$(), [client], [] as Unit[]);
  const lists = useObservable(() => d.lists.summaries$({ archived: false }), [client], [] as ListSummary[]);
  const { error, run } = useAction();
  const [editing, setEditing] = useState(false);
  const [form, setForm] = useState({ name: '', servings: '', instructions: '' });
  const [chosen, setChosen] = useState<Set<string> | null>(null);
  const [listId, setListId] = useState('');
  const [copied, setCopied] = useState<{ listId: string; added: number; merged: number } | null>(null);
  /** Servings to copy for, as typed; null: the recipe's own. */
  const [servings, setServings] = useState<string | null>(null);
  const [merge, setMerge] = useState(true);

  if (recipe === undefined) return <p aria-busy="true">{t('common.loading')}</p>;
  if (recipe === null)
    return (
      <>
        <h1>{t('recipes.notFound')}</h1>
        <Link href="/recipes">{t('recipes.back')}</Link>
      </>
    );
  const picked = chosen ?? new Set(recipe.ingredients.map((i) => i.id));
  const target = listId || lists[0]?.id || '';
  const servingsText = servings ?? (recipe.servings ? String(recipe.servings) : '');
  const servingsValue = Number(servingsText);
  const servingsValid = Number.isInteger(servingsValue) && servingsValue >= 1 && servingsValue <= 100;

  return (
    <>
      <h1>{recipe.name}</h1>
      {recipe.servings && <p class="list-meta">{t('recipes.serves', { n: recipe.servings })}</p>}
      {editing ? (
        <form
          class="card"
          onSubmit={(e) => {
            e.preventDefault();
            void run(async () => {
              await d.recipes.update(id, {
                name: form.name.trim(),
                servings: form.servings ? Number(form.servings) : null,
                instructions: form.instructions.trim() || null,
              });
              setEditing(false);
            });
          }}
        >
          <Field
            label={t('recipes.name')}
            required
            maxLength={LIMITS.recipeName}
            value={form.name}
            onInput={(e) => setForm({ ...form, name: e.currentTarget.value })}
          />
          <Field
            label={t('recipes.servings')}
            type="number"
            min="1"
            max="1000"
            value={form.servings}
            onInput={(e) => setForm({ ...form, servings: e.currentTarget.value })}
          />
          <div class="field">
            <label for="instructions">{t('recipes.instructions')}</label>
            <textarea
              id="instructions"
              rows={6}
              value={form.instructions}
              onInput={(e) => setForm({ ...form, instructions: e.currentTarget.value })}
            />
          </div>
          <div class="actions">
            <button type="button" onClick={() => setEditing(false)}>
              {t('common.cancel')}
            </button>
            <button class="primary" type="submit">
              {t('recipes.save')}
            </button>
          </div>
        </form>
      ) : (
        <>
          {recipe.instructions && <p class="instructions">{recipe.instructions}</p>}
          <div class="actions">
            <button
              type="button"
              onClick={() => {
                setForm({
                  name: recipe.name,
                  servings: recipe.servings ? String(recipe.servings) : '',
                  instructions: recipe.instructions ?? '',
                });
                setEditing(true);
              }}
            >
              {t('recipes.edit')}
            </button>
            <button
              type="button"
              class="danger"
              onClick={() =>
                confirm(t('recipes.deleteConfirm', { name: recipe.name })) &&
                void run(async () => {
                  await d.recipes.delete(id);
                  navigate('/recipes');
                })
              }
            >
              {t('recipes.delete')}
            </button>
          </div>
        </>
      )}
      <h2>{t('recipes.ingredients')}</h2>
      <ul class="items">
        {recipe.ingredients.map((ing) => (
          <li class="item" key={ing.id}>
            <input
              type="checkbox"
              id={`ing-${ing.id}`}
              aria-label={t('recipes.copyNamed', { name: ing.name })}
              checked={picked.has(ing.id)}
              onChange={(e) => {
                const next = new Set(picked);
                if (e.currentTarget.checked) next.add(ing.id);
                else next.delete(ing.id);
                setChosen(next);
              }}
            />
            <label for={`ing-${ing.id}`} class="item-text">
              <span class="item-name">{ing.name}</span>
              {formatAmount(ing, units) && <span class="item-amount">{formatAmount(ing, units)}</span>}
            </label>
            <button
              type="button"
              class="icon"
              aria-label={t('list.removeNamed', { name: ing.name })}
              onClick={() => void run(() => d.ingredients.delete(id, ing.id))}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <AddIngredient client={client} recipeId={id} units={units} position={recipe.ingredients.length} />
      {recipe.ingredients.length > 0 && !editing && (
        <section class="card">
          <h2>{t('recipes.copyTitle')}</h2>
          {lists.length === 0 ? (
            <p>{tRich('recipes.makeListFirst', { link: (chunks) => <Link href="/">{chunks}</Link> })}</p>
          ) : (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                void run(async () => {
                  const ids = recipe.ingredients.filter((i) => picked.has(i.id)).map((i) => i.id);
                  const result = await d.recipes.copyToList(id, {
                    listId: target,
                    ingredientIds: ids.length === recipe.ingredients.length ? undefined : ids,
                    ...(recipe.servings && servingsValid ? { servings: servingsValue } : {}),
                    merge,
                  });
                  setCopied({ listId: target, added: result.items.length, merged: result.merged.length });
                });
              }}
            >
              <div class="field">
                <label for="copy-list">{t('recipes.list')}</label>
                <select id="copy-list" value={target} onChange={(e) => setListId(e.currentTarget.value)}>
                  {lists.map((l) => (
                    <option value={l.id}>{l.name}</option>
                  ))}
                </select>
              </div>
              <div class="field">
                <label for="copy-servings">{t('recipes.servings')}</label>
                <input
                  id="copy-servings"
                  type="number"
                  inputMode="numeric"
                  min="1"
                  max="100"
                  step="1"
                  disabled={!recipe.servings}
                  aria-describedby={recipe.servings ? undefined : 'copy-servings-hint'}
                  value={servingsText}
                  onInput={(e) => setServings(e.currentTarget.value)}
                />
                {!recipe.servings && (
                  <small id="copy-servings-hint" class="hint">
                    {t('recipes.servingsHint')}
                  </small>
                )}
              </div>
              <label class="check">
                <input type="checkbox" checked={merge} onChange={(e) => setMerge(e.currentTarget.checked)} />
                {t('recipes.merge')}
              </label>
              <p class="hint">{t('recipes.chosen', { picked: picked.size, total: recipe.ingredients.length })}</p>
              <button
                class="primary"
                type="submit"
                disabled={picked.size === 0 || (!!recipe.servings && !servingsValid)}
              >
                {t('recipes.copy')}
              </button>
              {copied && (
                <p class="notice">
                  {copiedText(copied)} <Link href={`/lists/${copied.listId}`}>{t('recipes.openList')}</Link>
                </p>
              )}
            </form>
          )}
        </section>
      )}
      <ErrorText error={error} />
    </>
  );
}

function copiedText({ added, merged }: { added: number; merged: number }): string {
  return t('recipes.copied', { added, merged });
}

function AddIngredient({
  client,
  recipeId,
  units,
  position,
}: {
  client: PageProps['client'];
  recipeId: string;
  units: Unit[];
  position: number;
}) {
  const d = domain(client);
  const [named, setNamed] = useState<Named>({ name: '', product: null });
  const [amount, setAmount] = useState<Amount>(EMPTY_AMOUNT);
  const suggestions = useSuggestions(client, named.name);
  const product = productFor(named, suggestions);
  const { error, run } = useAction();
  return (
    <form
      class="card"
      onSubmit={(e) => {
        e.preventDefault();
        const name = named.name.trim();
        if (!name) return;
        void run(async () => {
          await d.ingredients.add(recipeId, { name, position, ...productIds(product), ...amountInput(amount, units) });
          setNamed({ name: '', product: null });
          setAmount(EMPTY_AMOUNT);
        });
      }}
    >
      <h2>{t('recipes.addIngredientTitle')}</h2>
      <div class="field">
        <ProductInput
          id="add-ingredient"
          label={t('recipes.ingredient')}
          showLabel
          value={named}
          onChange={setNamed}
          suggestions={suggestions}
        />
      </div>
      <AmountFields value={amount} onChange={setAmount} units={units} product={product} />
      <ErrorText error={error} />
      <button class="primary" type="submit">
        {t('recipes.addIngredient')}
      </button>
    </form>
  );
}
