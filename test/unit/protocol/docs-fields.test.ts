// The field table the server reads and writes records with (recordFields: key, column, kind,
// nullability) and the doc shapes of older wire schemas: what the server maps a row with and
// serves an older client.
import { expect } from 'chai';
import {
  COLLECTIONS,
  MIN_SCHEMA_VERSION,
  SCHEMA_VERSION,
  docAtSchema,
  docSchemaAt,
  docSchemas,
  narrowedAt,
  recordFields,
  rxSchemas,
  shapeVersionAt,
  type JsonSchemaProperty,
} from '@family-shopping/client/protocol';

/** The kind a field's JSON schema calls for (the server reads its column by it). */
function kindOf(p: JsonSchemaProperty): string {
  const type = typeof p.type === 'string' ? p.type : p.type.find((t) => t !== 'null');
  if (type === 'string' && p.pattern) return 'id';
  if (type === 'string' && p.format === 'date-time') return 'time';
  if (type === 'string' && p.enum) return 'enum';
  return { string: 'text', integer: 'int', number: 'quantity', boolean: 'boolean', array: 'flags' }[type as string]!;
}

describe('protocol/docs: the field table of each collection', () => {
  for (const c of COLLECTIONS) {
    it(`${c}: every field in key order, its snake_case column, its kind and nullability`, () => {
      const properties = rxSchemas[c].properties as Record<string, JsonSchemaProperty>;
      expect(recordFields[c].map((f) => f.key)).to.deep.equal(Object.keys(properties));
      for (const f of recordFields[c]) {
        const p = properties[f.key]!;
        expect(f.column, f.key).to.equal(f.key.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`));
        expect(f.column, f.key).to.match(/^[a-z_]+$/);
        expect(f.kind, f.key).to.equal(kindOf(p));
        expect(f.nullable, f.key).to.equal(typeof p.type !== 'string');
      }
    });
  }

  it('names the columns and kinds the database has', () => {
    const of = (c: (typeof COLLECTIONS)[number], key: string) => recordFields[c].find((f) => f.key === key);
    expect(of('items', 'familyUnitOfMeasureId')).to.deep.equal({
      key: 'familyUnitOfMeasureId',
      column: 'family_unit_of_measure_id',
      kind: 'id',
      nullable: true,
    });
    expect(of('items', 'name')).to.deep.equal({ key: 'name', column: 'name', kind: 'text', nullable: false });
    expect(of('items', 'quantity')).to.deep.equal({
      key: 'quantity',
      column: 'quantity',
      kind: 'quantity',
      nullable: true,
    });
    expect(of('items', 'checkedAt')).to.deep.equal({
      key: 'checkedAt',
      column: 'checked_at',
      kind: 'time',
      nullable: true,
    });
    expect(of('items', 'checked')).to.deep.equal({
      key: 'checked',
      column: 'checked',
      kind: 'boolean',
      nullable: false,
    });
    expect(of('sections', 'position')).to.deep.equal({
      key: 'position',
      column: 'position',
      kind: 'int',
      nullable: false,
    });
    expect(of('sections', 'category')).to.deep.equal({
      key: 'category',
      column: 'category',
      kind: 'enum',
      nullable: true,
    });
    expect(of('products', 'unitCategoryFlags')).to.deep.equal({
      key: 'unitCategoryFlags',
      column: 'unit_category_flags',
      kind: 'flags',
      nullable: false,
    });
    expect(of('units', 'code')).to.deep.equal({ key: 'code', column: 'code', kind: 'text', nullable: true });
    expect(of('recipes', 'instructions')).to.deep.equal({
      key: 'instructions',
      column: 'instructions',
      kind: 'text',
      nullable: true,
    });
  });

  it('JSON schema bounds of names, texts, codes, numbers and flags', () => {
    expect(rxSchemas.items.properties.name).to.deep.equal({ type: 'string', minLength: 1, maxLength: 500 });
    expect(rxSchemas.items.properties.quantityNote).to.deep.equal({ type: ['string', 'null'], maxLength: 500 });
    expect(rxSchemas.units.properties.code).to.deep.equal({ type: ['string', 'null'], minLength: 1, maxLength: 50 });
    expect(rxSchemas.items.properties.quantity).to.deep.equal({
      type: ['number', 'null'],
      minimum: 0,
      maximum: 999_999_999.999,
    });
    expect(rxSchemas.recipes.properties.servings).to.deep.equal({
      type: ['integer', 'null'],
      minimum: 1,
      maximum: 1000,
    });
    expect(rxSchemas.sections.properties.category).to.deep.include({ type: ['string', 'null'] });
    expect(rxSchemas.sections.properties.category.enum).to.include(null);
    expect(rxSchemas.products.properties.kind).to.deep.equal({ type: 'string', enum: ['global', 'family'] });
    expect(rxSchemas.products.properties.unitCategoryFlags).to.deep.equal({
      type: 'array',
      items: { type: 'string', enum: ['Count', 'Weight', 'Volume'] },
      uniqueItems: true,
      maxItems: 3,
    });
    expect(rxSchemas.lists.properties.createdAt).to.deep.equal({ type: 'string', format: 'date-time' });
  });
});

describe('protocol/docs: docs at older wire schemas', () => {
  it('only products are narrowed, and only below the schema that added englishName', () => {
    for (const c of COLLECTIONS) {
      for (let v = MIN_SCHEMA_VERSION; v <= SCHEMA_VERSION; v++) {
        expect(narrowedAt(c, v), `${c}@${v}`).to.equal(c === 'products' && v < 3);
        if (!narrowedAt(c, v)) expect(docSchemaAt(c, v), `${c}@${v}`).to.equal(docSchemas[c]);
        expect(shapeVersionAt(c, v), `${c}@${v}`).to.equal(c === 'products' ? v : MIN_SCHEMA_VERSION);
      }
    }
  });

  it('a product doc at schema 2 keeps its other fields and its rules', () => {
    const doc = {
      id: '0b0e8a3c-5d5f-4f43-9c4a-3f0f6f8d2a11',
      kind: 'family',
      name: 'Oat milk',
      englishName: null,
      unitCategoryFlags: [],
      category: null,
      overridden: false,
      createdAt: '2024-05-01T10:00:00.000Z',
      updatedAt: '2024-05-01T10:00:00.000Z',
      _deleted: true,
    };
    const { englishName, ...v2 } = doc;
    void englishName;
    expect(docAtSchema('products', doc, 2)).to.deep.equal(v2);
    const at2 = docSchemaAt('products', 2);
    expect(at2.parse({ ...v2, extra: 1 })).to.deep.equal(v2);
    expect(at2.safeParse({ ...v2, name: '' }).success).to.equal(false);
    expect(at2.safeParse({ ...v2, _deleted: undefined }).success).to.equal(false);
  });
});
