/**
 * Replication documents: the wire shape of the nine replicated collections,
 * shared by the server (`/api/sync/{collection}/pull|push`) and the client SDK
 * (RxDB collections).
 *
 * A doc is the REST record shape without `familyId`, plus `_deleted: boolean`
 * (api-contract §6). `_deleted` is for hard deletes only: a soft-removed item is
 * an ordinary doc with `removedAt` set. A tombstone (`_deleted: true`) carries the
 * record's last known state, so it has the full doc shape like any other doc. When
 * the server has to answer with a tombstone for a row it never stored (a rejected
 * insert), it echoes the pushed `newDocumentState` with `_deleted: true`.
 *
 * Every field is always present; "nullable" fields carry `null`, never `undefined`.
 *
 * Each collection is declared once, as a table of fields; the zod schemas
 * (`recordSchemas`, `docSchemas`) and the RxDB JSON schemas (`rxSchemas`) are both
 * generated from that table, so they cannot drift apart. Wire-format changes need
 * a `SCHEMA_VERSION` bump (see test/unit/protocol/contract.test.ts).
 *
 * Conventions:
 * - ids are UUIDs in canonical lowercase form (`crypto.randomUUID()`, Postgres'
 *   rendering). They are RxDB primary keys compared as plain strings, so an
 *   uppercase spelling of the same UUID would be a different document: rejected.
 * - timestamps are ISO 8601 strings with `Z` or an offset (the server answers in
 *   UTC, `Z`). Comparisons in `merge.ts` are by instant, not by spelling.
 * - every writable field follows its rule in rules.ts (names trimmed then 1..max code
 *   points, free texts 0..max code points, references as lowercase UUIDs, quantity,
 *   positions, pairs): the same rules as the REST bodies and the SDK's domain layer.
 */
import * as z from 'zod/mini';
import {
  CATEGORIES,
  LIMITS,
  POSITION_MAX,
  PRODUCT_PAIR,
  QUANTITY_MAX,
  RULES,
  SERVINGS_MAX,
  SERVINGS_MIN,
  UNIT_CATEGORIES,
  UNIT_PAIR,
  UUID_PATTERN,
  idRule,
  textRule,
  withPairRules,
  type Pair,
} from './rules.js';

/** Wire schema version of the replication protocol (query param `schema=`). Raise it
 * with every change to a doc's shape. Unrelated to RxDB's local schema `version` (per
 * collection in `rxSchemas`). 3: products gained `englishName`. */
export const SCHEMA_VERSION = 3;

/** The oldest wire schema the server still serves: a pull at it answers docs of that version's
 *  shape (without the fields added since, see `docAtSchema`), a push at it is accepted; an older
 *  one answers `426 schema_outdated`. api-contract §10 names 2 the current version, so clients
 *  written from the contract speak 2. */
export const MIN_SCHEMA_VERSION = 2;

/** The nine replicated collections, in a fixed order. */
export const COLLECTIONS = [
  'lists',
  'items',
  'stores',
  'sections',
  'recipes',
  'ingredients',
  'products',
  'units',
  'sectionMemory',
] as const;
export type CollectionName = (typeof COLLECTIONS)[number];

export function isCollectionName(value: unknown): value is CollectionName {
  return typeof value === 'string' && (COLLECTIONS as readonly string[]).includes(value);
}

/**
 * Collections the client may never push to: every push row is `rejected`
 * (`code: 'read_only'` is suggested). Section memory is derived by the server from
 * where items are placed.
 *
 * `products` and `units` are partly writable: only family rows (`kind: 'family'`)
 * may be inserted, changed or deleted, and of a `kind: 'global'` product doc only
 * `name`, `unitCategoryFlags` and `category` may change (that writes the family's override of
 * the global product). Global units are read-only. `kind`, `code` and `overridden`
 * are server-derived. An insert must carry `kind: 'family'`.
 */
export const READ_ONLY_COLLECTIONS = ['sectionMemory'] as const satisfies readonly CollectionName[];

/** The effective catalogs: they also follow the global catalog counter, kept as the
 * second cursor (`catalogVersion`, `catalogId`) of the checkpoint (see sync.ts). */
export const CATALOG_COLLECTIONS = ['products', 'units'] as const satisfies readonly CollectionName[];

export const CATALOG_KINDS = ['global', 'family'] as const;
export type CatalogKind = (typeof CATALOG_KINDS)[number];

// ---------------------------------------------------------------------------
// JSON schema (RxDB) types

export type JsonSchemaType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'null';

/** The subset of JSON Schema (draft-04, as RxDB uses it) our properties need. */
export interface JsonSchemaProperty {
  readonly type: JsonSchemaType | readonly JsonSchemaType[];
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly format?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly enum?: readonly (string | null)[];
  readonly items?: JsonSchemaProperty;
  readonly uniqueItems?: boolean;
  readonly maxItems?: number;
}

/** Structurally an `RxJsonSchema<DocData<C>>` (see rxdb's `RxJsonSchema`); `_deleted`
 * is not a property (RxDB manages it itself). */
export interface RxCollectionSchema<K extends string> {
  readonly title: string;
  /** RxDB's local schema version: raised with a migration strategy (SDK `database.ts`) when
   *  the collection's shape changes. */
  readonly version: number;
  readonly primaryKey: 'id';
  readonly type: 'object';
  readonly properties: { readonly [P in K]: JsonSchemaProperty };
  readonly required: readonly K[];
  readonly additionalProperties: false;
}

// ---------------------------------------------------------------------------
// Field table: one entry produces the zod schema and the JSON schema of a field, and tells the
// server its database column and how the column's value becomes the field's (its `kind`)

/**
 * How a field is stored and read back (server/shared/record-fields.ts maps a row with it;
 * server/shared/record-json-sql.ts writes a record's JSON in SQL with it):
 * - `id`: a uuid column, the canonical lowercase string;
 * - `text`: a text column (names, free texts, codes), the string as stored;
 * - `enum`: a text column holding one of the field's values (kinds, categories);
 * - `int`: an integer column (positions, servings);
 * - `quantity`: a `numeric` column (read as a string), a JSON number without trailing zeros;
 * - `boolean`: a boolean column;
 * - `time`: a timestamptz column, an ISO 8601 string in UTC with milliseconds;
 * - `flags`: an integer of bit flags, exchanged as an array of names (a server hook decodes it).
 */
export type FieldKind = 'id' | 'text' | 'enum' | 'int' | 'quantity' | 'boolean' | 'time' | 'flags';

interface Field<Z extends z.ZodMiniType = z.ZodMiniType> {
  readonly zod: Z;
  readonly json: JsonSchemaProperty;
  readonly kind: FieldKind;
  readonly nullable: boolean;
  /** The database column, when it is not the key in snake_case (`listId` → `list_id`). */
  readonly column?: string;
  /** The wire schema version that added the field, when it is newer than `MIN_SCHEMA_VERSION`:
   *  docs exchanged at an older schema leave it out. */
  readonly since?: number;
}

function field<Z extends z.ZodMiniType>(zod: Z, json: JsonSchemaProperty, kind: FieldKind): Field<Z> {
  return { zod, json, kind, nullable: false };
}

/** One field of a record as the database keeps it: its key, column, kind and nullability, in
 *  the record's key order. */
export interface RecordField<K extends string = string> {
  readonly key: K;
  readonly column: string;
  readonly kind: FieldKind;
  readonly nullable: boolean;
}

/** `unitOfMeasureId` → `unit_of_measure_id`: the column of a key unless its field names one. */
const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Lowercase canonical UUID string. */
export const uuidSchema = idRule();

/** ISO 8601 timestamp with `Z` or an offset. */
export const timestampSchema = z.iso.datetime({ offset: true });

const F = {
  uuid: () => field(uuidSchema, { type: 'string', maxLength: 36, pattern: UUID_PATTERN }, 'id'),
  /** A reference to a record (any letter case in, lowercase stored). */
  ref: () => field(RULES.ref(), { type: 'string', maxLength: 36, pattern: UUID_PATTERN }, 'id'),
  timestamp: () => field(timestampSchema, { type: 'string', format: 'date-time' }, 'time'),
  /** A name (trimmed, 1..max code points). */
  name: <Z extends z.ZodMiniType>(rule: () => Z, max: number) =>
    field(rule(), { type: 'string', minLength: 1, maxLength: max }, 'text'),
  /** A free text (0..max code points). */
  text: <Z extends z.ZodMiniType>(rule: () => Z, max: number) =>
    field(rule(), { type: 'string', maxLength: max }, 'text'),
  int: <Z extends z.ZodMiniType>(zod: Z, min: number, max: number) =>
    field(zod, { type: 'integer', minimum: min, maximum: max }, 'int'),
  boolean: () => field(z.boolean(), { type: 'boolean' }, 'boolean'),
  quantity: () => field(RULES.quantity(), { type: 'number', minimum: 0, maximum: QUANTITY_MAX }, 'quantity'),
  oneOf: <const T extends readonly [string, ...string[]]>(values: T) =>
    field(z.enum(values), { type: 'string', enum: [...values] }, 'enum'),
  unitCategoryFlags: () =>
    field(
      RULES.unitCategoryFlags(),
      {
        type: 'array',
        items: { type: 'string', enum: [...UNIT_CATEGORIES] },
        uniqueItems: true,
        maxItems: UNIT_CATEGORIES.length,
      },
      'flags',
    ),
  /** A field added by wire schema `version` (left out of docs exchanged at an older one). */
  since: <Z extends z.ZodMiniType>(version: number, f: Field<Z>): Field<Z> => ({ ...f, since: version }),
  nullable: <Z extends z.ZodMiniType>(f: Field<Z>): Field<z.ZodMiniNullable<Z>> => {
    const { type, enum: values, ...rest } = f.json;
    if (typeof type !== 'string') throw new Error('nullable() expects a single-typed field');
    const json = { type: [type, 'null'], ...rest, ...(values ? { enum: [...values, null] } : {}) } as const;
    return { ...f, zod: z.nullable(f.zod), json, nullable: true };
  },
};

type ZodShapeOf<T extends Record<string, Field>> = { [K in keyof T]: T[K]['zod'] };

function defineCollection<const T extends Record<string, Field>>(
  name: CollectionName,
  fields: T,
  pairs: readonly Pair[] = [],
  version = 0,
) {
  const shape = Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.zod])) as ZodShapeOf<T>;
  const record = withPairRules(z.object(shape), pairs);
  const doc = withPairRules(z.object({ ...shape, _deleted: z.boolean() }), pairs);
  const keys = Object.keys(fields) as (keyof T & string)[];
  const properties = Object.fromEntries(keys.map((k) => [k, fields[k]!.json])) as {
    [P in keyof T & string]: JsonSchemaProperty;
  };
  const table: readonly RecordField<keyof T & string>[] = keys.map((key) => {
    const { kind, nullable, column = snakeCase(key) } = fields[key]!;
    return { key, column, kind, nullable };
  });
  const rx: RxCollectionSchema<keyof T & string> = {
    title: name,
    version,
    primaryKey: 'id',
    type: 'object',
    properties,
    required: keys,
    additionalProperties: false,
  };
  // The doc at each older wire schema that lacks some field: the same rules without those fields.
  const added = keys.filter((k) => (fields[k]!.since ?? MIN_SCHEMA_VERSION) > MIN_SCHEMA_VERSION);
  const since = Object.fromEntries(added.map((k) => [k, fields[k]!.since!])) as Readonly<Record<string, number>>;
  const older = new Map<number, z.ZodMiniType>();
  for (let v = MIN_SCHEMA_VERSION; v < SCHEMA_VERSION; v++) {
    const left = added.filter((k) => since[k]! > v);
    if (left.length === 0) continue;
    const kept = Object.fromEntries(Object.entries(shape).filter(([k]) => !left.includes(k)));
    older.set(v, withPairRules(z.object({ ...kept, _deleted: z.boolean() }), pairs));
  }
  return { record, doc, rx, fields: table, since, older };
}

// ---------------------------------------------------------------------------
// The nine collections

/** What an item and an ingredient say of their quantity, unit and product, after their name. */
const quantityFields = () => ({
  quantity: F.nullable(F.quantity()),
  unitOfMeasureId: F.nullable(F.ref()),
  familyUnitOfMeasureId: F.nullable(F.ref()),
  isApproximate: F.boolean(),
  quantityNote: F.nullable(F.text(RULES.quantityNote, LIMITS.quantityNote)),
  productId: F.nullable(F.ref()),
  familyProductId: F.nullable(F.ref()),
});

/** The fields items and ingredients share, edited alike: the name and the quantity fields. */
export const QUANTITY_FIELDS = ['name', ...Object.keys(quantityFields())] as readonly (
  'name' | keyof ReturnType<typeof quantityFields>
)[];

const lists = defineCollection('lists', {
  id: F.uuid(),
  name: F.name(RULES.listName, LIMITS.listName),
  storeId: F.nullable(F.ref()),
  archivedAt: F.nullable(F.timestamp()),
  createdAt: F.timestamp(),
  updatedAt: F.timestamp(),
});

const items = defineCollection(
  'items',
  {
    id: F.uuid(),
    listId: F.ref(),
    name: F.name(RULES.itemName, LIMITS.itemName),
    ...quantityFields(),
    sectionId: F.nullable(F.ref()),
    checked: F.boolean(),
    checkedAt: F.nullable(F.timestamp()),
    removedAt: F.nullable(F.timestamp()),
    removedByUserId: F.nullable(F.uuid()),
    createdAt: F.timestamp(),
    updatedAt: F.timestamp(),
  },
  [UNIT_PAIR, PRODUCT_PAIR],
);

const stores = defineCollection('stores', {
  id: F.uuid(),
  name: F.name(RULES.storeName, LIMITS.storeName),
  createdAt: F.timestamp(),
  updatedAt: F.timestamp(),
});

// RxDB version 1 (replication schema 2): `category` added.
const sections = defineCollection(
  'sections',
  {
    id: F.uuid(),
    storeId: F.ref(),
    name: F.name(RULES.sectionName, LIMITS.sectionName),
    position: F.int(RULES.position(), 0, POSITION_MAX),
    category: F.nullable(F.oneOf(CATEGORIES)),
    createdAt: F.timestamp(),
    updatedAt: F.timestamp(),
  },
  [],
  1,
);

const recipes = defineCollection('recipes', {
  id: F.uuid(),
  name: F.name(RULES.recipeName, LIMITS.recipeName),
  servings: F.nullable(F.int(RULES.servings(), SERVINGS_MIN, SERVINGS_MAX)),
  instructions: F.nullable(F.text(RULES.instructions, LIMITS.instructions)),
  createdAt: F.timestamp(),
  updatedAt: F.timestamp(),
});

const ingredients = defineCollection(
  'ingredients',
  {
    id: F.uuid(),
    recipeId: F.ref(),
    name: F.name(RULES.ingredientName, LIMITS.ingredientName),
    ...quantityFields(),
    position: F.int(RULES.position(), 0, POSITION_MAX),
    createdAt: F.timestamp(),
    updatedAt: F.timestamp(),
  },
  [UNIT_PAIR, PRODUCT_PAIR],
);

// RxDB version 1 (replication schema 2): `category` added (the effective one, as `name`).
// RxDB version 2 (replication schema 3): `englishName` added: the English name of a global
// product the family did not rename (its override sets no name), whatever the family's locale
// (for an English family it equals `name`); null for family products and renamed ones. The
// product search matches it as well as `name` (api-contract §12, `searchProducts`).
// Server-derived, like `overridden`.
const products = defineCollection(
  'products',
  {
    id: F.uuid(),
    kind: F.oneOf(CATALOG_KINDS),
    name: F.name(RULES.productName, LIMITS.productName),
    englishName: F.since(3, F.nullable(F.name(RULES.productName, LIMITS.productName))),
    unitCategoryFlags: F.unitCategoryFlags(),
    category: F.nullable(F.oneOf(CATEGORIES)),
    overridden: F.boolean(),
    createdAt: F.timestamp(),
    updatedAt: F.timestamp(),
  },
  [],
  2,
);

const units = defineCollection('units', {
  id: F.uuid(),
  kind: F.oneOf(CATALOG_KINDS),
  code: F.nullable(
    field(textRule(LIMITS.unitCode, 1), { type: 'string', minLength: 1, maxLength: LIMITS.unitCode }, 'text'),
  ),
  name: F.name(RULES.unitName, LIMITS.unitName),
  abbreviation: F.name(RULES.abbreviation, LIMITS.abbreviation),
  category: F.oneOf(UNIT_CATEGORIES),
  createdAt: F.timestamp(),
  updatedAt: F.timestamp(),
});

const sectionMemory = defineCollection(
  'sectionMemory',
  {
    id: F.uuid(),
    storeId: F.uuid(),
    productId: F.nullable(F.uuid()),
    familyProductId: F.nullable(F.uuid()),
    sectionId: F.uuid(),
    updatedAt: F.timestamp(),
  },
  [PRODUCT_PAIR],
);

// ---------------------------------------------------------------------------
// Exports

/** Zod schemas of the REST record shapes (doc without `_deleted`), also used by the
 * live channel's events. Note: these carry refinements, so `.omit()`/`.pick()`
 * throw on them; build derived shapes from `.shape` instead. */
export const recordSchemas = {
  lists: lists.record,
  items: items.record,
  stores: stores.record,
  sections: sections.record,
  recipes: recipes.record,
  ingredients: ingredients.record,
  products: products.record,
  units: units.record,
  sectionMemory: sectionMemory.record,
} as const;

/** Zod schemas of the replication docs (record + `_deleted`). Unknown keys are
 * stripped (e.g. RxDB's `_rev`, `_meta`), not rejected. */
export const docSchemas = {
  lists: lists.doc,
  items: items.doc,
  stores: stores.doc,
  sections: sections.doc,
  recipes: recipes.doc,
  ingredients: ingredients.doc,
  products: products.doc,
  units: units.doc,
  sectionMemory: sectionMemory.doc,
} as const;

/** RxDB JSON schemas (each with its RxDB local schema `version`; `_deleted` is managed by RxDB).
 * Nullable fields are `type: [T, 'null']` and required: they are always present. */
export const rxSchemas = {
  lists: lists.rx,
  items: items.rx,
  stores: stores.rx,
  sections: sections.rx,
  recipes: recipes.rx,
  ingredients: ingredients.rx,
  products: products.rx,
  units: units.rx,
  sectionMemory: sectionMemory.rx,
} as const;

/** The field table of each collection as the database keeps it: key, column, kind, nullability,
 *  in the record's key order (the order of `rxSchemas` properties). The server maps rows to
 *  records and writes record JSON in SQL from it (server/shared/record-fields.ts,
 *  record-json-sql.ts); docs/architecture.md, "Adding a field". */
export const recordFields = {
  lists: lists.fields,
  items: items.fields,
  stores: stores.fields,
  sections: sections.fields,
  recipes: recipes.fields,
  ingredients: ingredients.fields,
  products: products.fields,
  units: units.fields,
  sectionMemory: sectionMemory.fields,
} as const;

/** A replication doc of collection C (with `_deleted`). */
export type Doc<C extends CollectionName> = z.output<(typeof docSchemas)[C]>;
/** A REST record / RxDB document type of collection C (without `_deleted`). */
export type DocData<C extends CollectionName> = z.output<(typeof recordSchemas)[C]>;
export type AnyDoc = { [C in CollectionName]: Doc<C> }[CollectionName];

export type ListDoc = Doc<'lists'>;
export type ItemDoc = Doc<'items'>;
export type StoreDoc = Doc<'stores'>;
export type SectionDoc = Doc<'sections'>;
export type RecipeDoc = Doc<'recipes'>;
export type IngredientDoc = Doc<'ingredients'>;
export type ProductDoc = Doc<'products'>;
export type UnitDoc = Doc<'units'>;
export type SectionMemoryDoc = Doc<'sectionMemory'>;

export type ListRecord = DocData<'lists'>;
export type ItemRecord = DocData<'items'>;

/** The fields added by a wire schema newer than `MIN_SCHEMA_VERSION`, per collection: field →
 *  the schema version that added it. */
export const fieldsSince: { readonly [C in CollectionName]: Readonly<Record<string, number>> } = {
  lists: lists.since,
  items: items.since,
  stores: stores.since,
  sections: sections.since,
  recipes: recipes.since,
  ingredients: ingredients.since,
  products: products.since,
  units: units.since,
  sectionMemory: sectionMemory.since,
};

const olderDocSchemas: { readonly [C in CollectionName]: ReadonlyMap<number, z.ZodMiniType> } = {
  lists: lists.older,
  items: items.older,
  stores: stores.older,
  sections: sections.older,
  recipes: recipes.older,
  ingredients: ingredients.older,
  products: products.older,
  units: units.older,
  sectionMemory: sectionMemory.older,
};

/** Whether docs of collection C exchanged at wire schema `schema` leave out some field. */
export function narrowedAt(collection: CollectionName, schema: number): boolean {
  return olderDocSchemas[collection].has(schema);
}

/** The zod schema of collection C's docs as exchanged at wire schema `schema`
 *  (`MIN_SCHEMA_VERSION`..`SCHEMA_VERSION`): `docSchemas[C]` without the fields added since. */
export function docSchemaAt(collection: CollectionName, schema: number): z.ZodMiniType {
  return olderDocSchemas[collection].get(schema) ?? docSchemas[collection];
}

/** A doc (or record) of collection C as exchanged at wire schema `schema`: without the fields
 *  added since (the same object when none are). */
export function docAtSchema<T extends object>(collection: CollectionName, doc: T, schema: number): T {
  if (!narrowedAt(collection, schema)) return doc;
  const since = fieldsSince[collection];
  return Object.fromEntries(Object.entries(doc).filter(([k]) => (since[k] ?? MIN_SCHEMA_VERSION) <= schema)) as T;
}

/** The shape version of collection C's docs at wire schema `schema`: the newest schema at or
 *  below it that added a field to C (`MIN_SCHEMA_VERSION` when none did). A checkpoint of the
 *  effective catalogs records it, so a pull at a schema whose docs have more fields than the
 *  ones the client holds starts the global side over (server/sync/pull.ts). */
export function shapeVersionAt(collection: CollectionName, schema: number): number {
  return Math.max(MIN_SCHEMA_VERSION, ...Object.values(fieldsSince[collection]).filter((v) => v <= schema));
}

/** Field names of collection C's docs, `_deleted` included. */
export type DocField<C extends CollectionName> = keyof Doc<C> & string;

/**
 * CLIENT-CONTROLLED fields per collection: the fields a push may change, the only
 * ones that decide a conflict (server: "assumedMasterState differs from the server
 * row in any client-controlled field") and the only ones `docsEqual`/`mergeDoc`
 * look at. Everything else (`id`, `createdAt`, `updatedAt` and the server-derived
 * fields: items' `checkedAt` and `removedByUserId`, catalogs' `kind`, `code` and
 * `overridden`) is stamped by the server and follows the server's copy.
 *
 * `sectionMemory` is read-only (see READ_ONLY_COLLECTIONS); its list names the data
 * fields so that `docsEqual` stays meaningful for it.
 */
export const clientFields = {
  lists: ['name', 'storeId', 'archivedAt', '_deleted'],
  items: ['listId', ...QUANTITY_FIELDS, 'sectionId', 'checked', 'removedAt', '_deleted'],
  stores: ['name', '_deleted'],
  sections: ['storeId', 'name', 'position', 'category', '_deleted'],
  recipes: ['name', 'servings', 'instructions', '_deleted'],
  ingredients: ['recipeId', ...QUANTITY_FIELDS, 'position', '_deleted'],
  products: ['name', 'unitCategoryFlags', 'category', '_deleted'],
  units: ['name', 'abbreviation', 'category', '_deleted'],
  sectionMemory: ['storeId', 'productId', 'familyProductId', 'sectionId', '_deleted'],
} as const satisfies { readonly [C in CollectionName]: readonly DocField<C>[] };

/** Validate an unknown value as a doc of collection C. */
export function parseDoc<C extends CollectionName>(collection: C, value: unknown): Doc<C> {
  return docSchemas[collection].parse(value) as Doc<C>;
}
