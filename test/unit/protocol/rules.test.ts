// The field rules (docs/api.md "Field rules") at their edges, and what they say when they
// refuse: the messages reach users as problem+json field errors, and the JSON Schema forms reach
// the OpenAPI document. The name rule's character classes are pinned in names.test.ts.
import { expect } from 'chai';
import * as z from 'zod/mini';
import {
  LIMITS,
  LOCALES,
  NUL_MESSAGE,
  POSITION_MAX,
  QUANTITY_MAX,
  RULES,
  UNIT_PAIR,
  PRODUCT_PAIR,
  bestLocale,
  codePointLength,
  hasAtMost3Decimals,
  idRule,
  isLocale,
  nameRule,
  textRule,
  withPairRules,
} from '@family-shopping/client/protocol';

const messages = (schema: z.ZodMiniType, value: unknown) =>
  (schema.safeParse(value).error?.issues ?? []).map((i) => i.message);
const ok = (schema: z.ZodMiniType, value: unknown) => schema.safeParse(value).success;

describe('protocol/rules: languages', () => {
  it('knows exactly its own locales', () => {
    for (const l of LOCALES) expect(isLocale(l)).to.equal(true);
    expect(isLocale('pt')).to.equal(false);
    expect(isLocale('EN')).to.equal(false);
    expect(isLocale(undefined)).to.equal(false);
    expect(isLocale(['en'])).to.equal(false);
  });

  it('takes the first language it has: an exact tag, else the same language', () => {
    expect(bestLocale(['pt-BR'])).to.equal('pt-BR');
    expect(bestLocale([' PT-br '])).to.equal('pt-BR');
    expect(bestLocale(['pt-PT'])).to.equal('pt-BR');
    expect(bestLocale(['pt'])).to.equal('pt-BR');
    expect(bestLocale(['de_AT'])).to.equal('de');
    expect(bestLocale(['it', 'fr-CA', 'de'])).to.equal('fr');
    expect(bestLocale(['', '  ', 'es'])).to.equal('es');
    expect(bestLocale(['it', 'ja'])).to.equal(null);
    expect(bestLocale([])).to.equal(null);
  });
});

describe('protocol/rules: texts', () => {
  it('counts code points, not UTF-16 units', () => {
    expect(codePointLength('')).to.equal(0);
    expect(codePointLength('abc')).to.equal(3);
    expect(codePointLength('😀é')).to.equal(2);
  });

  it('a name is trimmed, then 1..max code points, and says so when it is not', () => {
    const rule = nameRule(3);
    expect(rule.parse('  Tea \n')).to.equal('Tea');
    expect(ok(rule, '😀😀😀')).to.equal(true);
    expect(messages(rule, 'Teas')).to.deep.equal(['must be 1 to 3 characters long']);
    expect(messages(rule, '')).to.include('must be 1 to 3 characters long');
    expect(z.toJSONSchema(rule)).to.include({ minLength: 1, maxLength: 3 });
    expect(RULES.listName().safeParse('x'.repeat(LIMITS.listName)).success).to.equal(true);
    expect(RULES.listName().safeParse('x'.repeat(LIMITS.listName + 1)).success).to.equal(false);
  });

  it('a free text is kept as given, 0..max code points (min..max), and never holds NUL', () => {
    const rule = textRule(3);
    expect(rule.parse(' a ')).to.equal(' a ');
    expect(ok(rule, '')).to.equal(true);
    expect(messages(rule, 'abcd')).to.deep.equal(['must be at most 3 characters long']);
    expect(messages(rule, 'a\u0000')).to.deep.equal([NUL_MESSAGE]);
    expect(z.toJSONSchema(rule)).to.include({ maxLength: 3, pattern: '^[^\\u0000]*$' });
    expect(z.toJSONSchema(rule)).to.not.have.property('minLength');
    const bounded = textRule(3, 2);
    expect(messages(bounded, 'a')).to.deep.equal(['must be 2 to 3 characters long']);
    expect(ok(bounded, 'ab')).to.equal(true);
    expect(ok(bounded, 'abc')).to.equal(true);
    expect(z.toJSONSchema(bounded)).to.include({ minLength: 2, maxLength: 3 });
  });

  it('a name never holds NUL either', () => {
    expect(messages(nameRule(10), 'a\u0000b')).to.include(NUL_MESSAGE);
  });
});

describe('protocol/rules: ids and numbers', () => {
  it('a stored id is a lowercase UUID; a reference is any UUID, taken in lower case', () => {
    const id = '0a1b2c3d-0000-4000-8000-00000000abcd';
    expect(ok(idRule(), id)).to.equal(true);
    expect(messages(idRule(), id.toUpperCase())).to.deep.equal(['must be a lowercase UUID']);
    expect(messages(idRule(), 'nope')).to.include('must be a UUID');
    expect(RULES.ref().parse(id.toUpperCase())).to.equal(id);
    expect(messages(RULES.ref(), 'nope')).to.deep.equal(['must be a UUID']);
  });

  it('a quantity is 0..QUANTITY_MAX with at most 3 decimals', () => {
    const q = RULES.quantity();
    for (const v of [0, 1.5, 0.001, 2.125, QUANTITY_MAX, -0]) expect(ok(q, v), String(v)).to.equal(true);
    for (const v of [-0.001, QUANTITY_MAX + 1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(ok(q, v), String(v)).to.equal(false);
    }
    expect(messages(q, 1.2345)).to.deep.equal(['must have at most 3 decimal places']);
    expect(hasAtMost3Decimals(-1.25)).to.equal(true);
    expect(hasAtMost3Decimals(10)).to.equal(true);
    expect(hasAtMost3Decimals(1e21)).to.equal(false);
    expect(hasAtMost3Decimals(Number.POSITIVE_INFINITY)).to.equal(false);
  });

  it('a position is an integer 0..POSITION_MAX; servings 1..1000', () => {
    expect([0, POSITION_MAX, -1, POSITION_MAX + 1, 1.5].map((v) => ok(RULES.position(), v))).to.deep.equal([
      true,
      true,
      false,
      false,
      false,
    ]);
    expect([1, 1000, 0, 1001, 2.5].map((v) => ok(RULES.servings(), v))).to.deep.equal([
      true,
      true,
      false,
      false,
      false,
    ]);
  });

  it('categories: a unit category, a shop category or none, and flags without repeats', () => {
    expect(ok(RULES.category(), 'Weight')).to.equal(true);
    expect(ok(RULES.category(), 'weight')).to.equal(false);
    expect(ok(RULES.shopCategory(), null)).to.equal(true);
    expect(ok(RULES.shopCategory(), 'personal_care')).to.equal(true);
    expect(ok(RULES.shopCategory(), 'Dairy')).to.equal(false);
    const flags = RULES.unitCategoryFlags();
    expect(ok(flags, [])).to.equal(true);
    expect(ok(flags, ['Volume', 'Count', 'Weight'])).to.equal(true);
    expect(messages(flags, ['Count', 'Count'])).to.deep.equal(['must not repeat a category']);
    expect(ok(flags, ['Count', 'Weight', 'Volume', 'Count'])).to.equal(false);
  });
});

describe('protocol/rules: pairs', () => {
  const schema = () =>
    withPairRules(
      z.object({
        unitOfMeasureId: z.nullable(z.string()),
        familyUnitOfMeasureId: z.nullable(z.string()),
        productId: z.optional(z.nullable(z.string())),
        familyProductId: z.optional(z.nullable(z.string())),
      }),
      [UNIT_PAIR, PRODUCT_PAIR],
    );

  it('at most one id of each pair is set; the second one is blamed', () => {
    const s = schema();
    expect(ok(s, { unitOfMeasureId: 'u', familyUnitOfMeasureId: null, productId: 'p' })).to.equal(true);
    expect(ok(s, { unitOfMeasureId: null, familyUnitOfMeasureId: null })).to.equal(true);
    const issues = s.safeParse({
      unitOfMeasureId: 'u',
      familyUnitOfMeasureId: 'f',
      productId: 'p',
      familyProductId: 'q',
    }).error?.issues;
    expect(issues?.map((i) => [i.path.join('.'), i.message])).to.deep.equal([
      ['familyUnitOfMeasureId', 'unitOfMeasureId and familyUnitOfMeasureId cannot both be set'],
      ['familyProductId', 'productId and familyProductId cannot both be set'],
    ]);
  });

  it('carries the pair rule into JSON Schema; no pairs leaves the schema as it was', () => {
    expect(z.toJSONSchema(schema())).to.have.deep.property('allOf', [
      {
        not: {
          required: ['unitOfMeasureId', 'familyUnitOfMeasureId'],
          properties: { unitOfMeasureId: { not: { type: 'null' } }, familyUnitOfMeasureId: { not: { type: 'null' } } },
        },
      },
      {
        not: {
          required: ['productId', 'familyProductId'],
          properties: { productId: { not: { type: 'null' } }, familyProductId: { not: { type: 'null' } } },
        },
      },
    ]);
    const plain = z.object({ a: z.string() });
    expect(withPairRules(plain, [])).to.equal(plain);
  });
});
