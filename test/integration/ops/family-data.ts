// A family with something of every kind, made through REST only (so the same code seeds the
// service of an earlier commit for the upgrade fixture, scripts/make-upgrade-fixture.ts), and
// the REST views a family's members read.
import crypto from 'node:crypto';

export interface Seeded {
  email: string;
  password: string;
  token: string;
  listIds: string[];
  storeIds: string[];
  recipeIds: string[];
  productNames: string[];
}

const PASSWORD = 'correct horse battery';
/** The pull schema the views ask for (the protocol's SCHEMA_VERSION when the fixture was made). */
export const VIEW_SCHEMA = 1;

async function call(base: string, method: string, path: string, token?: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

export async function login(base: string, email: string, password = PASSWORD): Promise<string> {
  return (await call(base, 'POST', '/api/auth/login', undefined, { email, password })).accessToken as string;
}

/** Registers a new family's admin (and a member) and fills the family through REST. */
export async function seedFamily(base: string, label: string): Promise<Seeded> {
  const tag = crypto.randomBytes(3).toString('hex');
  const email = `owner-${tag}@example.test`;
  const owner = await call(base, 'POST', '/api/auth/register', undefined, {
    email,
    userName: `Owner ${tag}`,
    password: PASSWORD,
    newFamilyName: `${label} ${tag}`,
  });
  const token = owner.accessToken as string;
  const code = (await call(base, 'GET', '/api/family', token)).inviteCode as string;
  await call(base, 'POST', '/api/auth/register', undefined, {
    email: `member-${tag}@example.test`,
    userName: `Member ${tag}`,
    password: PASSWORD,
    familyCode: code,
  });
  await call(base, 'POST', '/api/family/invites', token, { email: `invited-${tag}@example.test` });

  const units = (await call(base, 'GET', '/api/units', token)) as Array<{ id: string; abbreviation: string }>;
  const kg = units.find((u) => u.abbreviation === 'kg') ?? units[0]!;
  const jar = await call(base, 'POST', '/api/units', token, {
    name: 'Jar',
    abbreviation: `jar${tag}`,
    category: 'Count',
  });
  const product = await call(base, 'POST', '/api/products', token, {
    name: `Granola ${tag}`,
    unitCategoryFlags: ['Count', 'Weight'],
  });
  const global = ((await call(base, 'GET', '/api/products?q=milk', token)) as Array<{ id: string; name: string }>)[0];
  if (global) await call(base, 'PUT', `/api/products/${global.id}/override`, token, { name: `Oat milk ${tag}` });

  const store = await call(base, 'POST', '/api/stores', token, { name: `Corner shop ${tag}` });
  const produce = await call(base, 'POST', `/api/stores/${store.id}/sections`, token, { name: 'Produce' });
  const dairy = await call(base, 'POST', `/api/stores/${store.id}/sections`, token, { name: 'Dairy' });
  await call(base, 'POST', '/api/stores', token, { name: `Market ${tag}` });

  const list = await call(base, 'POST', '/api/lists', token, { name: 'Weekly', storeId: store.id });
  const other = await call(base, 'POST', '/api/lists', token, { name: 'Party' });
  const add = (listId: string, body: object) => call(base, 'POST', `/api/lists/${listId}/items`, token, body);
  await add(list.id, { name: 'Apples', quantity: 1.5, unitOfMeasureId: kg.id, sectionId: produce.id });
  const eggs = await add(list.id, { name: 'Eggs', quantity: 12, isApproximate: true, quantityNote: 'free range' });
  await add(list.id, { familyProductId: product.id, quantity: 2, familyUnitOfMeasureId: jar.id });
  if (global) await add(list.id, { productId: global.id, sectionId: dairy.id });
  const gone = await add(list.id, { name: 'Candles' });
  await call(base, 'PATCH', `/api/lists/${list.id}/items/${eggs.id}`, token, { checked: true });
  await call(base, 'DELETE', `/api/lists/${list.id}/items/${gone.id}`, token);
  await add(other.id, { name: 'Crisps ✓ «ü»' });

  const recipe = await call(base, 'POST', '/api/recipes', token, {
    name: 'Pancakes',
    servings: 4,
    instructions: 'Mix.\nFry.',
    ingredients: [
      { name: 'Flour', quantity: 0.25, unitOfMeasureId: kg.id },
      { name: 'Eggs', quantity: 2 },
      { familyProductId: product.id },
    ],
  });
  return {
    email,
    password: PASSWORD,
    token,
    listIds: [list.id, other.id],
    storeIds: [store.id],
    recipeIds: [recipe.id],
    productNames: [product.name, ...(global ? [`Oat milk ${tag}`] : [])],
  };
}

const COLLECTIONS = [
  'lists',
  'items',
  'stores',
  'sections',
  'recipes',
  'ingredients',
  'products',
  'units',
  'sectionMemory',
];

/** The paths of the views a member reads, for a seeded family. */
export function viewPaths(s: Omit<Seeded, 'token'>): string[] {
  return [
    '/api/me',
    '/api/family',
    '/api/family/members',
    '/api/family/invites',
    '/api/units',
    ...s.productNames.map((n) => `/api/products?q=${encodeURIComponent(n)}`),
    '/api/stores',
    ...s.storeIds.flatMap((id) => [`/api/stores/${id}`, `/api/stores/${id}/sections`]),
    '/api/lists',
    '/api/lists?archived=true',
    ...s.listIds.map((id) => `/api/lists/${id}`),
    '/api/recipes',
    ...s.recipeIds.map((id) => `/api/recipes/${id}`),
    ...COLLECTIONS.map((c) => `/api/sync/${c}/pull?schema=${VIEW_SCHEMA}&limit=1000`),
  ];
}

export async function readViews(base: string, token: string, paths: string[]): Promise<Record<string, unknown>> {
  const views: Record<string, unknown> = {};
  for (const p of paths) views[p] = await call(base, 'GET', p, token);
  return views;
}

/**
 * Where `now` differs from `then`, ignoring fields `now` adds to an object (a newer version may
 * add fields to a view; it must keep every value the older one showed). Empty: equal.
 */
export function differences(then: unknown, now: unknown, at = '', options: { catalog?: boolean } = {}): string[] {
  if (Array.isArray(then)) {
    if (!Array.isArray(now)) return [`${at}: was an array`];
    // The global catalog (units, products) may grow with a version: its entries are matched by
    // id, and entries it adds are not differences.
    if (options.catalog && then.every((v) => v && typeof v === 'object' && 'id' in v)) {
      const byId = new Map(now.map((v: { id?: unknown }) => [v?.id, v]));
      return then.flatMap((v: { id: unknown }) => differences(v, byId.get(v.id), `${at}[id=${String(v.id)}]`));
    }
    if (then.length !== now.length) return [`${at}: ${then.length} entries, now ${now.length}`];
    return then.flatMap((v, i) => differences(v, now[i], `${at}[${i}]`, options));
  }
  if (then && typeof then === 'object') {
    if (!now || typeof now !== 'object' || Array.isArray(now)) return [`${at}: was an object`];
    return Object.entries(then).flatMap(([k, v]) => differences(v, (now as Record<string, unknown>)[k], `${at}.${k}`));
  }
  return Object.is(then, now) ? [] : [`${at}: ${JSON.stringify(then)}, now ${JSON.stringify(now)}`];
}

/** Inserts `count` users straight into the database (`<prefix>-<n>@example.test`, no usable
 *  password): volume for the snapshot's pages and batches, not a family's data. */
export async function insertUsers(
  db: { raw(sql: string, bindings: unknown[]): Promise<unknown> },
  prefix: string,
  count: number,
) {
  await db.raw(
    `INSERT INTO users (id, email, user_name, password_hash)
     SELECT gen_random_uuid(), ? || '-' || g || '@example.test', ? || ' ' || g, 'none' FROM generate_series(1, ?) g`,
    [prefix, prefix, count],
  );
}
