// The catalog's staple names and the default section names in every language of the app
// (api-contract §12): complete, valid under the name rule, and unique within a language.
import { expect } from 'chai';
import {
  CATEGORIES,
  DEFAULT_SECTIONS,
  DEFAULT_SECTION_NAMES,
  LOCALES,
  RULES,
  defaultSectionNames,
  type Locale,
} from '@family-shopping/client/protocol';
import { loadProductNames, loadStapleProducts } from '../../seeds/load.js';

const TRANSLATED = LOCALES.filter((l): l is Exclude<Locale, 'en'> => l !== 'en');

/** The names that collide once letter case is ignored, as `a = b` pairs. */
function caseInsensitiveDuplicates(names: readonly string[], locale: Locale): string[] {
  const seen = new Map<string, string>();
  const duplicates: string[] = [];
  for (const name of names) {
    const folded = name.toLocaleLowerCase(locale);
    const earlier = seen.get(folded);
    if (earlier !== undefined) duplicates.push(`${earlier} = ${name}`);
    seen.set(folded, name);
  }
  return duplicates;
}

/** Names the rule refuses or would store differently (it trims), with the reason. */
function refusedBy(rule: ReturnType<typeof RULES.productName>, names: readonly string[]): string[] {
  return names.flatMap((name) => {
    const r = rule.safeParse(name);
    if (!r.success) return [`${JSON.stringify(name)}: ${r.error.issues.map((i) => i.message).join('; ')}`];
    return r.data === name ? [] : [`${JSON.stringify(name)}: not trimmed`];
  });
}

describe('locale names: the staple catalog in every language (contract §12)', () => {
  const staples = loadStapleProducts().map((p) => p.key);
  const names = loadProductNames();

  it('has the four languages besides English, and no other', () => {
    expect(Object.keys(names)).to.have.members(TRANSLATED);
  });

  for (const locale of TRANSLATED) {
    describe(locale, () => {
      it('names every staple and nothing else', () => {
        const keys = Object.keys(names[locale]);
        expect(
          staples.filter((k) => !keys.includes(k)),
          'missing staples',
        ).to.deep.equal([]);
        expect(
          keys.filter((k) => !staples.includes(k)),
          'unknown keys',
        ).to.deep.equal([]);
        expect(keys).to.have.length(staples.length);
      });

      it('gives names the product name rule accepts', () => {
        const values = Object.values(names[locale]);
        expect(values.every((v) => typeof v === 'string')).to.equal(true);
        expect(refusedBy(RULES.productName(), values)).to.deep.equal([]);
      });

      it('gives each staple its own name (ignoring letter case)', () => {
        expect(caseInsensitiveDuplicates(Object.values(names[locale]), locale)).to.deep.equal([]);
      });
    });
  }
});

describe('locale names: the default sections in every language (contract §12)', () => {
  it('names English sections exactly as DEFAULT_SECTIONS', () => {
    expect(DEFAULT_SECTION_NAMES.en).to.equal(DEFAULT_SECTIONS);
    expect(defaultSectionNames('en')).to.deep.equal([...DEFAULT_SECTIONS]);
  });

  for (const locale of LOCALES) {
    describe(locale, () => {
      const sections = defaultSectionNames(locale);

      it('has one section per shop category, 11 in all', () => {
        expect(sections).to.have.length(CATEGORIES.length).and.to.have.length(11);
        expect(sections).to.equal(DEFAULT_SECTION_NAMES[locale]);
      });

      it('gives names the section name rule accepts', () => {
        expect(refusedBy(RULES.sectionName(), sections)).to.deep.equal([]);
      });

      it('gives each section its own name (ignoring letter case)', () => {
        expect(caseInsensitiveDuplicates(sections, locale)).to.deep.equal([]);
      });
    });
  }
});
