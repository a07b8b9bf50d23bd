import { expect } from 'chai';
import fc from 'fast-check';
import type { RxJsonSchema } from 'rxdb';
import { checkSchema } from 'rxdb/plugins/dev-mode';
import { getValidator } from 'rxdb/plugins/validate-ajv';
import {
  CATALOG_COLLECTIONS,
  COLLECTIONS,
  READ_ONLY_COLLECTIONS,
  MIN_SCHEMA_VERSION,
  SCHEMA_VERSION,
  clientFields,
  docAtSchema,
  docSchemaAt,
  fieldsSince,
  shapeVersionAt,
  docSchemas,
  hasAtMost3Decimals,
  isCollectionName,
  parseDoc,
  recordSchemas,
  rxSchemas,
  type CollectionName,
  type DocData,
} from '@family-shopping/client/protocol';
import { arbDoc } from './arbitraries.js';

// Type-level: every rxSchema is an RxJsonSchema of its document type.
const typed: { [C in CollectionName]: RxJsonSchema<DocData<C>> } = rxSchemas;
void typed;

const SERVER_FIELDS: Record<CollectionName, string[]> = {
  lists: ['id', 'createdAt', 'updatedAt'],
  items: ['id', 'createdAt', 'updatedAt', 'checkedAt', 'removedByUserId'],
  stores: ['id', 'createdAt', 'updatedAt'],
  sections: ['id', 'createdAt', 'updatedAt'],
  recipes: ['id', 'createdAt', 'updatedAt'],
  ingredients: ['id', 'createdAt', 'updatedAt'],
  products: ['id', 'kind', 'englishName', 'overridden', 'createdAt', 'updatedAt'],
  units: ['id', 'kind', 'code', 'createdAt', 'updatedAt'],
  sectionMemory: ['id', 'updatedAt'],
};

function withoutDeleted(doc: Record<string, unknown>): Record<string, unknown> {
  const { _deleted, ...rest } = doc;
  void _deleted;
  return rest;
}

describe('protocol/docs', () => {
  it('declares the nine collections in order, schema version 3 (2 still served)', () => {
    expect(COLLECTIONS).to.deep.equal([
      'lists',
      'items',
      'stores',
      'sections',
      'recipes',
      'ingredients',
      'products',
      'units',
      'sectionMemory',
    ]);
    expect(SCHEMA_VERSION).to.equal(3);
    expect(MIN_SCHEMA_VERSION).to.equal(2);
    expect(READ_ONLY_COLLECTIONS).to.deep.equal(['sectionMemory']);
    expect(CATALOG_COLLECTIONS).to.deep.equal(['products', 'units']);
    expect(isCollectionName('items')).to.equal(true);
    expect(isCollectionName('users')).to.equal(false);
    expect(isCollectionName('toString')).to.equal(false);
  });

  it('products gained englishName at schema 3: docs at schema 2 leave it out', () => {
    expect(fieldsSince.products).to.deep.equal({ englishName: 3 });
    for (const c of COLLECTIONS) if (c !== 'products') expect(fieldsSince[c], c).to.deep.equal({});
    const doc = {
      id: '0b0e8a3c-5d5f-4f43-9c4a-3f0f6f8d2a11',
      kind: 'global',
      name: 'Milch',
      englishName: 'Milk',
      unitCategoryFlags: ['Volume'],
      category: 'dairy',
      overridden: false,
      createdAt: '2024-05-01T10:00:00.000Z',
      updatedAt: '2024-05-01T10:00:00.000Z',
      _deleted: false,
    };
    const { englishName, ...v2 } = doc;
    void englishName;
    expect(docAtSchema('products', doc, 2)).to.deep.equal(v2);
    expect(docAtSchema('products', doc, SCHEMA_VERSION)).to.equal(doc);
    expect(docAtSchema('items', doc, 2)).to.equal(doc);
    expect(docSchemaAt('products', 2).safeParse(v2).success).to.equal(true);
    expect(docSchemaAt('products', 3).safeParse(v2).success).to.equal(false);
    expect(docSchemaAt('products', 3)).to.equal(docSchemas.products);
    expect([shapeVersionAt('products', 2), shapeVersionAt('products', 3)]).to.deep.equal([2, 3]);
    expect(shapeVersionAt('units', SCHEMA_VERSION)).to.equal(MIN_SCHEMA_VERSION);
  });

  for (const c of COLLECTIONS) {
    describe(c, () => {
      const rx = rxSchemas[c];
      const docKeys = Object.keys(docSchemas[c].shape);

      it('client fields + server fields partition the doc fields', () => {
        const client = [...clientFields[c]];
        expect(client).to.include('_deleted');
        expect([...client, ...SERVER_FIELDS[c]].sort()).to.deep.equal([...docKeys].sort());
      });

      it('the RxDB schema mirrors the zod schema and passes RxDB dev-mode checks', () => {
        // RxDB local version 1 where schema 2 added `category`, 2 where schema 3 added products'
        // `englishName` (each with a migration strategy).
        expect(rx.version).to.equal(c === 'products' ? 2 : c === 'sections' ? 1 : 0);
        expect(rx.primaryKey).to.equal('id');
        expect(rx.type).to.equal('object');
        expect(rx.properties.id).to.include({ type: 'string', maxLength: 36 });
        expect(Object.keys(rx.properties)).to.deep.equal(docKeys.filter((k) => k !== '_deleted'));
        expect(Object.keys(rx.properties)).to.not.include('_deleted');
        expect([...rx.required]).to.deep.equal(Object.keys(rx.properties));
        expect(Object.keys(recordSchemas[c].shape)).to.deep.equal(Object.keys(rx.properties));
        expect(() => checkSchema(structuredClone(rx))).to.not.throw();
        // Nullable in zod ⇔ 'null' in the JSON schema's type.
        for (const [k, p] of Object.entries(rx.properties as Record<string, { type: unknown }>)) {
          const zodNullable = (docSchemas[c].shape as Record<string, { safeParse(v: unknown): { success: boolean } }>)[
            k
          ]!.safeParse(null).success;
          expect(Array.isArray(p.type) && p.type.includes('null'), k).to.equal(zodNullable);
        }
      });

      it('generated docs are valid for both zod and the RxDB (ajv) validator', () => {
        const validate = getValidator(rx as never);
        fc.assert(
          fc.property(arbDoc(c), (doc) => {
            expect(docSchemas[c].safeParse(doc).success).to.equal(true);
            expect(validate(withoutDeleted(doc))).to.deep.equal([]);
            expect(parseDoc(c, doc)).to.deep.equal(doc);
          }),
          { numRuns: 100 },
        );
      });

      it('zod and ajv both reject a null id, a missing field and an uppercase uuid', () => {
        const validate = getValidator(rx as never);
        const [doc] = fc.sample(arbDoc(c), { numRuns: 1, seed: 7 }) as Record<string, unknown>[];
        const cases = [
          { ...doc, id: null },
          { ...doc, id: 'ABCDEF00-0000-4000-8000-000000000001' },
          { ...doc, id: 'not-a-uuid' },
          withoutDeleted({ ...doc, updatedAt: undefined }),
          { ...doc, updatedAt: 'yesterday' },
        ];
        for (const bad of cases) {
          expect(docSchemas[c].safeParse(bad).success, JSON.stringify(bad)).to.equal(false);
          expect(validate(withoutDeleted(bad))).to.not.deep.equal([]);
        }
        expect(docSchemas[c].safeParse(withoutDeleted(doc!)).success, 'missing _deleted').to.equal(false);
      });
    });
  }

  describe('field rules', () => {
    const base = {
      id: '00000000-0000-4000-8000-000000000001',
      listId: '00000000-0000-4000-8000-000000000002',
      name: 'Milk',
      quantity: 1.5,
      unitOfMeasureId: null,
      familyUnitOfMeasureId: null,
      isApproximate: false,
      quantityNote: null,
      productId: null,
      familyProductId: null,
      sectionId: null,
      checked: false,
      checkedAt: null,
      removedAt: null,
      removedByUserId: null,
      createdAt: '2024-05-01T10:00:00.000Z',
      updatedAt: '2024-05-01T10:00:00+02:00',
      _deleted: false,
    };
    const ok = (over: Record<string, unknown>) => docSchemas.items.safeParse({ ...base, ...over }).success;
    const U = '00000000-0000-4000-8000-00000000000a';
    const V = '00000000-0000-4000-8000-00000000000b';

    it('quantity: ≥ 0, at most 3 decimals, at most 999999999.999, or null', () => {
      expect(ok({})).to.equal(true);
      for (const q of [null, 0, 1, 0.001, 2.125, 999_999_999.999])
        expect(ok({ quantity: q }), String(q)).to.equal(true);
      for (const q of [-1, 0.0001, 1.2345, 0.1 + 0.2, 1_000_000_000, Number.NaN, Infinity, '1'])
        expect(ok({ quantity: q }), String(q)).to.equal(false);
      expect(hasAtMost3Decimals(1e-7)).to.equal(false);
    });

    it('at most one of each unit pair and product pair', () => {
      expect(ok({ unitOfMeasureId: U })).to.equal(true);
      expect(ok({ familyUnitOfMeasureId: U })).to.equal(true);
      expect(ok({ unitOfMeasureId: U, familyUnitOfMeasureId: V })).to.equal(false);
      expect(ok({ productId: U, familyProductId: V })).to.equal(false);
      expect(recordSchemas.ingredients.safeParse({}).success).to.equal(false);
    });

    it('name length counts code points; blank names are rejected', () => {
      expect(ok({ name: '' })).to.equal(false);
      expect(ok({ name: '🍌'.repeat(500) })).to.equal(true);
      expect(ok({ name: '🍌'.repeat(501) })).to.equal(false);
      expect(ok({ quantityNote: 'x'.repeat(501) })).to.equal(false);
      expect(ok({ quantityNote: '' })).to.equal(true);
    });

    it('timestamps are ISO 8601 with Z or an offset', () => {
      expect(ok({ removedAt: '2024-05-01T10:00:00Z', removedByUserId: U })).to.equal(true);
      expect(ok({ removedAt: '2024-05-01 10:00:00' })).to.equal(false);
      expect(ok({ removedAt: '2024-05-01T10:00:00' })).to.equal(false);
    });

    it('strips unknown keys (RxDB metadata, familyId)', () => {
      const parsed = docSchemas.items.parse({ ...base, familyId: U, _rev: '1-a', _meta: { lwt: 1 } });
      expect(parsed).to.not.have.any.keys('familyId', '_rev', '_meta');
    });

    it('unitCategoryFlags is a set over Count/Weight/Volume; units have a category', () => {
      const product = {
        id: U,
        kind: 'family',
        name: 'Apples',
        englishName: null,
        unitCategoryFlags: ['Weight', 'Count'],
        category: 'produce',
        overridden: false,
        createdAt: '2024-05-01T10:00:00.000Z',
        updatedAt: '2024-05-01T10:00:00.000Z',
        _deleted: false,
      };
      expect(docSchemas.products.safeParse(product).success).to.equal(true);
      expect(docSchemas.products.safeParse({ ...product, unitCategoryFlags: [] }).success).to.equal(true);
      expect(docSchemas.products.safeParse({ ...product, unitCategoryFlags: ['Count', 'Count'] }).success).to.equal(
        false,
      );
      expect(docSchemas.products.safeParse({ ...product, unitCategoryFlags: ['None'] }).success).to.equal(false);
      expect(docSchemas.products.safeParse({ ...product, kind: 'private' }).success).to.equal(false);
      const unit = {
        id: U,
        kind: 'global',
        code: 'each',
        name: 'Each',
        abbreviation: 'ea',
        category: 'Count',
        createdAt: '2024-05-01T10:00:00.000Z',
        updatedAt: '2024-05-01T10:00:00.000Z',
        _deleted: false,
      };
      expect(docSchemas.units.safeParse(unit).success).to.equal(true);
      expect(docSchemas.units.safeParse({ ...unit, kind: 'family', code: null }).success).to.equal(true);
      expect(docSchemas.units.safeParse({ ...unit, abbreviation: 'x'.repeat(21) }).success).to.equal(false);
      expect(docSchemas.units.safeParse({ ...unit, category: 'Length' }).success).to.equal(false);
    });

    it('recipes: servings 1..1000 or null; sections: integer position ≥ 0', () => {
      const recipe = {
        id: U,
        name: 'Pancakes',
        servings: 4,
        instructions: null,
        createdAt: '2024-05-01T10:00:00.000Z',
        updatedAt: '2024-05-01T10:00:00.000Z',
        _deleted: false,
      };
      expect(docSchemas.recipes.safeParse(recipe).success).to.equal(true);
      expect(docSchemas.recipes.safeParse({ ...recipe, servings: null }).success).to.equal(true);
      expect(docSchemas.recipes.safeParse({ ...recipe, servings: 0 }).success).to.equal(false);
      expect(docSchemas.recipes.safeParse({ ...recipe, servings: 1001 }).success).to.equal(false);
      expect(docSchemas.recipes.safeParse({ ...recipe, servings: 2.5 }).success).to.equal(false);
      const section = {
        id: U,
        storeId: V,
        name: 'Produce',
        position: 0,
        category: 'produce',
        createdAt: '2024-05-01T10:00:00.000Z',
        updatedAt: '2024-05-01T10:00:00.000Z',
        _deleted: false,
      };
      expect(docSchemas.sections.safeParse(section).success).to.equal(true);
      // A shop category: one of the eleven keys, or null; always present.
      expect(docSchemas.sections.safeParse({ ...section, category: null }).success).to.equal(true);
      expect(docSchemas.sections.safeParse({ ...section, category: 'Produce' }).success).to.equal(false);
      expect(docSchemas.sections.safeParse({ ...section, category: undefined }).success).to.equal(false);
      expect(docSchemas.sections.safeParse({ ...section, position: -1 }).success).to.equal(false);
      expect(docSchemas.sections.safeParse({ ...section, position: 1.5 }).success).to.equal(false);
    });
  });
});
