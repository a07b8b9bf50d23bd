// The name rule (api-contract §13 "Names"): one rule in the protocol package, used by the REST
// bodies, the replication docs (push) and the SDK's domain layer alike.
import { expect } from 'chai';
import { LIMITS, RULES, inputSchemas, nameRule, recordSchemas } from '@family-shopping/client/protocol';

const REFUSED: [string, string][] = [
  ['only spaces', '   '],
  ['only U+200B (zero width space)', '\u200B'],
  ['only zero-width and format characters', '\u200B\u200C\uFEFF\u2060'],
  ['only a Hangul filler (default-ignorable)', '\u3164'],
  ['a carriage return and line feed', 'The Smiths\r\nX-Injected: 1'],
  ['a line feed', 'Milk\nBread'],
  ['a tab', 'Milk\tBread'],
  ['the NUL character', 'Milk\u0000'],
  ['DEL', 'Milk\u007F'],
  ['a C1 control', 'Milk\u0085'],
  ['U+202E (right-to-left override)', 'Milk\u202Egpj.exe'],
  ['U+202A (left-to-right embedding)', '\u202AMilk'],
  ['U+2066 (left-to-right isolate)', 'Milk\u2066x\u2069'],
  ['U+2069 (pop directional isolate)', 'Milk\u2069'],
  ['a noncharacter U+FFFF', 'Milk\uFFFF'],
  ['a noncharacter U+FDD0', 'Milk\uFDD0'],
  ['a noncharacter U+1FFFE', 'Milk\u{1FFFE}'],
  ['a lone surrogate', 'Milk\uD800'],
];

const ACCEPTED: [string, string, string][] = [
  ['plain', 'Milk', 'Milk'],
  ['trimmed', '  Milk  ', 'Milk'],
  ['trimmed of a trailing line feed (nothing of it is kept)', ' Milk \r\n', 'Milk'],
  ['with inner spaces', 'Oat  milk', 'Oat  milk'],
  ['an emoji with a zero-width joiner', '👩‍👩‍👧 groceries', '👩‍👩‍👧 groceries'],
  ['right-to-left script with marks', 'חלב\u200F 3%', 'חלב\u200F 3%'],
  ['accented', 'Crème fraîche', 'Crème fraîche'],
  ['a zero-width space inside', 'Milk\u200Bshake', 'Milk\u200Bshake'],
  ['CJK', '牛乳', '牛乳'],
];

describe('protocol: the name rule (contract §13)', () => {
  const rule = nameRule(200);

  for (const [what, value] of REFUSED) {
    it(`refuses a name with ${what}`, () => {
      expect(rule.safeParse(value).success, JSON.stringify(value)).to.equal(false);
    });
  }

  for (const [what, value, stored] of ACCEPTED) {
    it(`accepts a name: ${what}`, () => {
      const r = rule.safeParse(value);
      expect(r.success, JSON.stringify(value)).to.equal(true);
      expect(r.data).to.equal(stored);
    });
  }

  it('says why a name is refused', () => {
    const r = rule.safeParse('\u200B');
    expect(r.success).to.equal(false);
    expect(r.error!.issues.map((i) => i.message).join(' ')).to.match(/visible character/);
  });

  it('is the rule of every name: REST inputs, replication docs and account names', () => {
    const bad = 'Smiths\u202E';
    for (const key of [
      'listName',
      'itemName',
      'storeName',
      'sectionName',
      'recipeName',
      'ingredientName',
      'productName',
      'unitName',
      'abbreviation',
    ] as const) {
      expect(RULES[key]().safeParse(bad).success, key).to.equal(false);
      expect(RULES[key]().safeParse('\u200B').success, key).to.equal(false);
    }
    expect(inputSchemas.listCreate.safeParse({ name: '\u200B' }).success).to.equal(false);
    expect(
      inputSchemas.unitCreate.safeParse({ name: 'Gram', abbreviation: 'g\u202Ex', category: 'Weight' }).success,
    ).to.equal(false);
    const list = {
      id: '00000000-0000-4000-8000-000000000001',
      name: 'Milk\u2066',
      storeId: null,
      archivedAt: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    expect(recordSchemas.lists.safeParse(list).success).to.equal(false);
    expect(recordSchemas.lists.safeParse({ ...list, name: 'Milk' }).success).to.equal(true);
    expect(nameRule(LIMITS.familyName).safeParse('The\r\nSmiths').success).to.equal(false);
  });
});
