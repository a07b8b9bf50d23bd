/**
 * fast-check arbitraries for replication docs, derived from the RxDB JSON schemas
 * (so they follow the wire contract) with small value pools, so that equal values
 * (the "unchanged field" case of a 3-way merge) are frequent.
 */
import fc from 'fast-check';
import { rxSchemas, type CollectionName, type Doc, type JsonSchemaProperty } from '@family-shopping/client/protocol';

export const UUIDS = [
  '00000000-0000-4000-8000-000000000001',
  '00000000-0000-4000-8000-000000000002',
  '00000000-0000-4000-8000-000000000003',
  '8d3c1f9e-2b7a-4c61-9e0f-5a4b3c2d1e0f',
] as const;

/** Includes two spellings of the same instant, to exercise instant equality. */
export const TIMESTAMPS = [
  '2024-05-01T10:00:00.000Z',
  '2024-05-01T10:00:00Z',
  '2024-05-02T08:30:00.000Z',
  '2024-05-03T12:00:00+02:00',
] as const;

const TEXTS = ['', 'a', 'Milk', 'Oat milk', 'Bread', 'x'.repeat(20)];
const QUANTITIES = [0, 1, 2, 2.5, 0.125, 999_999_999.999];

function nonNullType(p: JsonSchemaProperty): string {
  const types = typeof p.type === 'string' ? [p.type] : [...p.type];
  const t = types.find((x) => x !== 'null');
  if (!t) throw new Error('property without a non-null type');
  return t;
}

function isNullable(p: JsonSchemaProperty): boolean {
  return typeof p.type !== 'string' && p.type.includes('null');
}

export function arbProperty(p: JsonSchemaProperty): fc.Arbitrary<unknown> {
  let a: fc.Arbitrary<unknown>;
  const type = nonNullType(p);
  if (p.enum) {
    a = fc.constantFrom(...p.enum.filter((v): v is string => v !== null));
  } else if (type === 'string' && p.pattern) {
    a = fc.constantFrom(...UUIDS);
  } else if (type === 'string' && p.format === 'date-time') {
    a = fc.constantFrom(...TIMESTAMPS);
  } else if (type === 'string') {
    const pool = TEXTS.filter((t) => t.length >= (p.minLength ?? 0) && t.length <= (p.maxLength ?? Infinity));
    a = fc.constantFrom(...pool);
  } else if (type === 'integer') {
    const min = p.minimum ?? 0;
    a = fc.integer({ min, max: Math.min(p.maximum ?? min + 3, min + 3) });
  } else if (type === 'number') {
    a = fc.constantFrom(...QUANTITIES);
  } else if (type === 'boolean') {
    a = fc.boolean();
  } else if (type === 'array') {
    const items = p.items?.enum?.filter((v): v is string => v !== null) ?? [];
    a = fc.shuffledSubarray(items);
  } else {
    throw new Error(`no arbitrary for type ${type}`);
  }
  return isNullable(p) ? fc.option(a, { nil: null, freq: 3 }) : a;
}

const PAIRS = [
  ['unitOfMeasureId', 'familyUnitOfMeasureId'],
  ['productId', 'familyProductId'],
] as const;

/** Make a doc satisfy the "at most one of a pair" rules. */
export function fixPairs<T>(doc: T): T {
  const d = doc as Record<string, unknown>;
  for (const [a, b] of PAIRS) {
    if (a in d && d[a] != null && d[b] != null) d[b] = null;
  }
  return doc;
}

export function arbDoc<C extends CollectionName>(
  collection: C,
  opts: { deletedFreq?: number } = {},
): fc.Arbitrary<Doc<C>> {
  const schema = rxSchemas[collection];
  const props = schema.properties as Record<string, JsonSchemaProperty>;
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [k, p] of Object.entries(props)) model[k] = arbProperty(p);
  const deletedFreq = opts.deletedFreq ?? 10;
  model['_deleted'] = fc.oneof(
    { arbitrary: fc.constant(false), weight: deletedFreq - 1 },
    { arbitrary: fc.constant(true), weight: 1 },
  );
  return fc.record(model).map((d) => fixPairs(d) as Doc<C>);
}

/**
 * A merge input: `local` and `remote` are `base` with a random subset of fields
 * replaced by another doc's values (id and createdAt shared by all three).
 */
export function arbMergeInput<C extends CollectionName>(
  collection: C,
): fc.Arbitrary<{ base: Doc<C>; local: Doc<C>; remote: Doc<C> }> {
  const keys = [...Object.keys(rxSchemas[collection].properties), '_deleted'];
  const mask = fc.array(fc.boolean(), { minLength: keys.length, maxLength: keys.length });
  return fc
    .tuple(arbDoc(collection), arbDoc(collection), arbDoc(collection), mask, mask)
    .map(([base, x, y, ml, mr]) => {
      const b = base as Record<string, unknown>;
      const mix = (other: Record<string, unknown>, m: boolean[]) => {
        const out: Record<string, unknown> = { ...b };
        keys.forEach((k, i) => {
          if (m[i] && k !== 'id' && k !== 'createdAt') out[k] = other[k];
        });
        return fixPairs(out) as Doc<C>;
      };
      return {
        base,
        local: mix(x as Record<string, unknown>, ml),
        remote: mix(y as Record<string, unknown>, mr),
      };
    });
}
