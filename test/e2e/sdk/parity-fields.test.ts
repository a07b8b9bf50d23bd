// One source of field rules (issue 13 item 2, issue 10 "Must show"): for every writable field,
// REST, replication push and the SDK's domain layer accept and refuse exactly the same values,
// and store the same value when they accept (names trimmed, references in lower case). A
// property test: fast-check draws values around each rule's edges (whitespace, NUL, lengths in
// code points around the limit, decimals, bounds, ids in any case, unknown and malformed ids,
// wrong types); each value goes through all three paths, each in a family of its own with the
// same records (so uniqueness rules see the same history).
import { expect } from 'chai';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import type { RunningServer } from '../../../server/server.js';
import { makeFamily, type TestFamily } from '../../helpers/factories.js';
import { request } from '../../helpers/app.js';
import {
  FamilyClientError,
  LIMITS,
  QUANTITY_MAX,
  POSITION_MAX,
  SCHEMA_VERSION,
  type FamilyClient,
} from '@family-shopping/client';
import { signedInClient, startSdkApp } from './helpers.js';

/** The records a family holds for the tests, by role. */
interface Fixture {
  family: TestFamily;
  storeId: string;
  listId: string;
  recipeId: string;
  productId: string; // a family product
  unitId: string; // a family unit
  globalUnitId: string;
  sectionId: string; // a section of the store
}

/** A value for a reference field, resolved per family. */
type RefValue = { own: keyof Fixture; upper: boolean } | { raw: unknown };

type Outcome = { ok: true; value: unknown } | { ok: false };

interface FieldSpec {
  collection: 'lists' | 'items' | 'stores' | 'sections' | 'recipes' | 'ingredients' | 'products' | 'units';
  field: string;
  values: fc.Arbitrary<unknown>;
}

// --- values ---------------------------------------------------------------------------------

const astral = '😀';
function around(max: number): fc.Arbitrary<string> {
  return fc.oneof(
    fc.integer({ min: max - 1, max: max + 1 }).map((n) => 'a'.repeat(n)),
    fc.integer({ min: max - 1, max: max + 1 }).map((n) => astral.repeat(n)),
    fc.integer({ min: max - 1, max: max + 1 }).map((n) => ` ${'b'.repeat(n)} `),
  );
}
const shortText = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.string({ maxLength: 6, unit: 'grapheme' }),
  fc.constantFrom('', ' ', '  \t\n ', ' milk ', 'a\u0000b', '\u00a0x\u00a0', 'Äpfel', `${astral}`),
);
const wrongType = fc.constantFrom(null, 5, true, [], {});
const nameValues = (max: number) => fc.oneof(shortText, around(max), wrongType);
const textValues = (max: number) => fc.oneof(shortText, around(max), fc.constantFrom(null, 5, false));
const quantityValues = fc.oneof(
  fc.constantFrom(null, 0, 1, 2.5, 0.125, 0.1234, -1, -0.001, QUANTITY_MAX, QUANTITY_MAX + 1, 1e21, '2', true),
  fc.double({ min: -10, max: 1e10, noNaN: true }),
  fc.integer({ min: -5, max: 100000 }).map((n) => n / 1000),
  fc.integer({ min: -5, max: 100000 }).map((n) => n / 10000),
);
const intValues = (min: number, max: number) =>
  fc.oneof(
    fc.integer({ min: min - 2, max: min + 3 }),
    fc.constantFrom(max, max + 1, 1.5, -1, null, '3', min),
    fc.integer(),
  );
const refValues = (own: keyof Fixture): fc.Arbitrary<RefValue> =>
  fc.oneof(
    fc.boolean().map((upper) => ({ own, upper })),
    fc.constantFrom<RefValue>(
      { raw: null },
      { raw: 'not-a-uuid' },
      { raw: '' },
      { raw: 42 },
      { raw: '00000000-0000-0000-0000-00000000000g' },
    ),
    fc.uuid().map((u) => ({ raw: u })),
  );
const flagsValues = fc.oneof(
  fc.subarray(['Count', 'Weight', 'Volume']),
  fc.array(fc.constantFrom('Count', 'Weight', 'Volume', 'count', 'Size'), { maxLength: 4 }),
  fc.constantFrom(null, 'Count', [1]),
);
const categoryValues = fc.constantFrom('Count', 'Weight', 'Volume', 'count', 'Size', '', null, 1);
const boolValues = fc.constantFrom(true, false, null, 'true', 0, 1);
/** Shop categories (§10): a key or null. */
const shopCategoryValues = fc.constantFrom('produce', 'personal_care', 'dairy', null, 'Produce', 'toys', '', 1, []);

const FIELDS: FieldSpec[] = [
  { collection: 'lists', field: 'name', values: nameValues(LIMITS.listName) },
  { collection: 'lists', field: 'storeId', values: refValues('storeId') },
  { collection: 'items', field: 'name', values: nameValues(LIMITS.itemName) },
  { collection: 'items', field: 'quantity', values: quantityValues },
  { collection: 'items', field: 'unitOfMeasureId', values: refValues('globalUnitId') },
  { collection: 'items', field: 'familyUnitOfMeasureId', values: refValues('unitId') },
  { collection: 'items', field: 'isApproximate', values: boolValues },
  { collection: 'items', field: 'quantityNote', values: textValues(LIMITS.quantityNote) },
  { collection: 'items', field: 'familyProductId', values: refValues('productId') },
  { collection: 'items', field: 'sectionId', values: refValues('sectionId') },
  { collection: 'stores', field: 'name', values: nameValues(LIMITS.storeName) },
  { collection: 'sections', field: 'name', values: nameValues(LIMITS.sectionName) },
  { collection: 'sections', field: 'position', values: intValues(0, POSITION_MAX) },
  { collection: 'sections', field: 'category', values: shopCategoryValues },
  { collection: 'recipes', field: 'name', values: nameValues(LIMITS.recipeName) },
  { collection: 'recipes', field: 'servings', values: intValues(1, 1000) },
  { collection: 'recipes', field: 'instructions', values: textValues(LIMITS.instructions) },
  { collection: 'ingredients', field: 'name', values: nameValues(LIMITS.ingredientName) },
  { collection: 'ingredients', field: 'quantity', values: quantityValues },
  { collection: 'ingredients', field: 'quantityNote', values: textValues(LIMITS.quantityNote) },
  { collection: 'ingredients', field: 'position', values: intValues(0, POSITION_MAX) },
  { collection: 'ingredients', field: 'familyProductId', values: refValues('productId') },
  { collection: 'products', field: 'name', values: nameValues(LIMITS.productName) },
  { collection: 'products', field: 'unitCategoryFlags', values: flagsValues },
  { collection: 'products', field: 'category', values: shopCategoryValues },
  { collection: 'units', field: 'name', values: nameValues(LIMITS.unitName) },
  { collection: 'units', field: 'abbreviation', values: nameValues(LIMITS.abbreviation) },
  { collection: 'units', field: 'category', values: categoryValues },
];

// --- the three paths ----------------------------------------------------------------------------

/** The value as the wire carries it (JSON), so every path sees the same value. */
const wire = (v: unknown) => (v === undefined ? undefined : JSON.parse(JSON.stringify({ v })).v);

function resolve(v: unknown, fx: Fixture): unknown {
  if (v && typeof v === 'object' && ('own' in v || 'raw' in v)) {
    const r = v as RefValue;
    if ('raw' in r) return r.raw;
    const id = String(fx[r.own]);
    return r.upper ? id.toUpperCase() : id;
  }
  return wire(v);
}

/** A REST body that is valid but for the field under test. */
function restCall(spec: FieldSpec, fx: Fixture, value: unknown): { path: string; body: Record<string, unknown> } {
  const unique = `x${randomUUID().slice(0, 8)}`;
  const set = (base: Record<string, unknown>) => ({ ...base, [spec.field]: value });
  switch (spec.collection) {
    case 'lists':
      return { path: '/api/lists', body: set({ name: 'List' }) };
    case 'items':
      return { path: `/api/lists/${fx.listId}/items`, body: set({ name: 'Item' }) };
    case 'stores':
      return { path: '/api/stores', body: set({ name: unique }) };
    case 'sections':
      return { path: `/api/stores/${fx.storeId}/sections`, body: set({ name: 'Section' }) };
    case 'recipes':
      return { path: '/api/recipes', body: set({ name: 'Recipe' }) };
    case 'ingredients':
      return { path: `/api/recipes/${fx.recipeId}/ingredients`, body: set({ name: 'Ingredient', position: 0 }) };
    case 'products':
      return { path: '/api/products', body: set({ name: unique }) };
    case 'units':
      return { path: '/api/units', body: set({ name: 'Unit', abbreviation: unique.slice(0, 8), category: 'Count' }) };
  }
}

/** A full doc for a push insert, valid but for the field under test. */
function pushDoc(spec: FieldSpec, fx: Fixture, value: unknown): Record<string, unknown> {
  const now = new Date().toISOString();
  const unique = `x${randomUUID().slice(0, 8)}`;
  const common = { id: randomUUID(), createdAt: now, updatedAt: now, _deleted: false };
  const quantityFields = {
    quantity: null,
    unitOfMeasureId: null,
    familyUnitOfMeasureId: null,
    isApproximate: false,
    quantityNote: null,
    productId: null,
    familyProductId: null,
  };
  const base: Record<string, Record<string, unknown>> = {
    lists: { name: 'List', storeId: null, archivedAt: null },
    items: {
      listId: fx.listId,
      name: 'Item',
      ...quantityFields,
      sectionId: null,
      checked: false,
      checkedAt: null,
      removedAt: null,
      removedByUserId: null,
    },
    stores: { name: unique },
    sections: { storeId: fx.storeId, name: 'Section', position: 0, category: null },
    recipes: { name: 'Recipe', servings: null, instructions: null },
    ingredients: { recipeId: fx.recipeId, name: 'Ingredient', ...quantityFields, position: 0 },
    products: {
      kind: 'family',
      name: unique,
      englishName: null,
      unitCategoryFlags: [],
      category: null,
      overridden: false,
    },
    units: { kind: 'family', code: null, name: 'Unit', abbreviation: unique.slice(0, 8), category: 'Count' },
  };
  const doc: Record<string, unknown> = { ...common, ...base[spec.collection], [spec.field]: value };
  if (spec.collection === 'sections' && spec.field !== 'position') doc.position = 1000;
  // (Ingredients get an explicit position everywhere: appending after one at the largest
  // position would overflow.)
  return doc;
}

async function viaRest(app: RunningServer, spec: FieldSpec, fx: Fixture, value: unknown): Promise<Outcome> {
  const { path, body } = restCall(spec, fx, value);
  const r = await request(app, 'POST', path, { token: fx.family.admin.token, body });
  if (r.status === 201) return { ok: true, value: r.body[spec.field] };
  expect(r.status, `REST ${path} ${JSON.stringify(body).slice(0, 200)}: ${r.text.slice(0, 300)}`).to.be.oneOf([
    400, 409,
  ]);
  return { ok: false };
}

async function viaPush(app: RunningServer, spec: FieldSpec, fx: Fixture, value: unknown): Promise<Outcome> {
  const doc = pushDoc(spec, fx, value);
  const r = await request(app, 'POST', `/api/sync/${spec.collection}/push?schema=${SCHEMA_VERSION}`, {
    token: fx.family.admin.token,
    body: [{ newDocumentState: doc }],
  });
  expect(r.status, r.text).to.equal(200);
  if (r.body.rejected.length > 0) return { ok: false };
  const stored = await storedDoc(app, spec.collection, fx, String(doc.id));
  expect(stored, `pushed ${spec.collection} ${doc.id} not found`).to.not.equal(undefined);
  return { ok: true, value: stored[spec.field] };
}

/** The server's doc of a collection by id (pulled from the start). */
async function storedDoc(app: RunningServer, collection: string, fx: Fixture, id: string): Promise<any> {
  let checkpoint: unknown = null;
  for (;;) {
    const q = `schema=${SCHEMA_VERSION}&limit=1000${checkpoint ? `&checkpoint=${encodeURIComponent(JSON.stringify(checkpoint))}` : ''}`;
    const r = await request(app, 'GET', `/api/sync/${collection}/pull?${q}`, { token: fx.family.admin.token });
    expect(r.status, r.text).to.equal(200);
    const found = r.body.documents.find((d: any) => d.id === id);
    if (found) return found;
    if (r.body.documents.length === 0) return undefined;
    checkpoint = r.body.checkpoint;
  }
}

async function viaDomain(c: FamilyClient, spec: FieldSpec, fx: Fixture, value: unknown): Promise<Outcome> {
  const set = (base: Record<string, unknown>) => ({ ...base, [spec.field]: value }) as any;
  try {
    let doc: any;
    switch (spec.collection) {
      case 'lists':
        doc = await c.lists.create(set({ name: 'List' }));
        break;
      case 'items':
        doc = await c.items.add(fx.listId, set({ name: 'Item' }));
        break;
      case 'stores':
        doc = await c.stores.create(set({ name: `x${randomUUID().slice(0, 8)}` }));
        break;
      case 'sections':
        doc = await c.sections.add(fx.storeId, set({ name: 'Section' }));
        break;
      case 'recipes':
        doc = await c.recipes.create(set({ name: 'Recipe' }));
        break;
      case 'ingredients':
        doc = await c.ingredients.add(fx.recipeId, set({ name: 'Ingredient', position: 0 }));
        break;
      case 'products':
        doc = await c.products.create(set({ name: `x${randomUUID().slice(0, 8)}` }));
        break;
      case 'units':
        doc = await c.units.create(
          set({ name: 'Unit', abbreviation: `x${randomUUID().slice(0, 7)}`, category: 'Count' }),
        );
        break;
    }
    return { ok: true, value: doc[spec.field] };
  } catch (err) {
    if (err instanceof FamilyClientError && err.code === 'validation_failed') return { ok: false };
    throw err;
  }
}

async function fixture(app: RunningServer): Promise<Fixture> {
  const family = await makeFamily(app);
  const rest = async (method: string, path: string, body?: unknown) => {
    const r = await request(app, method, path, { token: family.admin.token, body });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const store = await rest('POST', '/api/stores', { name: 'Shop' });
  const list = await rest('POST', '/api/lists', { name: 'Weekly', storeId: store.id });
  const recipe = await rest('POST', '/api/recipes', { name: 'Soup' });
  const product = await rest('POST', '/api/products', { name: 'Leeks' });
  const unit = await rest('POST', '/api/units', { name: 'Bunch', abbreviation: 'bn', category: 'Count' });
  const units = await rest('GET', '/api/units');
  return {
    family,
    storeId: store.id,
    listId: list.id,
    recipeId: recipe.id,
    productId: product.id,
    unitId: unit.id,
    globalUnitId: units.find((u: any) => u.kind === 'global').id,
    sectionId: store.sections[0].id,
  };
}

describe('e2e SDK: field rules agree across REST, push and the domain layer (property)', function () {
  this.timeout(900_000);
  let app: RunningServer;
  let rest: Fixture;
  let push: Fixture;
  let domain: Fixture;
  let client: FamilyClient;

  before(async () => {
    app = await startSdkApp();
    [rest, push, domain] = [await fixture(app), await fixture(app), await fixture(app)];
    client = await signedInClient(app, domain.family.admin);
    await client.start();
    await client.awaitInSync();
    await client.stop(); // the domain writes stay local
  });
  after(async () => {
    await client?.destroy();
    await app.close();
  });

  for (const spec of FIELDS) {
    it(`${spec.collection}.${spec.field}`, async () => {
      await fc.assert(
        fc.asyncProperty(spec.values, async (v) => {
          const r = await viaRest(app, spec, rest, resolve(v, rest));
          const p = await viaPush(app, spec, push, resolve(v, push));
          const shown = JSON.stringify(resolve(v, rest))?.slice(0, 120);
          expect(p.ok, `push vs REST for ${shown}`).to.equal(r.ok);
          const sameRef = (o: Outcome, fx: Fixture) => (o.ok ? resolveBack(o.value, fx) : undefined);
          if (r.ok && p.ok)
            expect(sameRef(p, push), `stored by push vs REST for ${shown}`).to.deep.equal(sameRef(r, rest));
          const d = await viaDomain(client, spec, domain, resolve(v, domain));
          expect(d.ok, `domain vs REST for ${shown}`).to.equal(r.ok);
          if (r.ok && d.ok)
            expect(sameRef(d, domain), `written by the domain layer vs REST for ${shown}`).to.deep.equal(
              sameRef(r, rest),
            );
        }),
        { numRuns: Number(process.env.FIELD_RUNS ?? 40) },
      );
    });
  }
});

/** A stored value with the family's own ids named by role, so families can be compared. */
function resolveBack(value: unknown, fx: Fixture): unknown {
  if (typeof value !== 'string') return value;
  for (const key of ['storeId', 'listId', 'recipeId', 'productId', 'unitId', 'globalUnitId', 'sectionId'] as const) {
    if (value === fx[key]) return `<${key}>`;
  }
  return value;
}
