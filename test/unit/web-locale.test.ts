// The web app's language and number rules (contract §12): the browser's languages matched to
// the five locales, quantities shown and typed in the locale's number format.
import { expect } from 'chai';
import { formatQuantity, matchLocale, parseQuantity } from '../../web/src/lib/locale.js';

describe('web: the language of a browser', () => {
  const cases: [string[], string][] = [
    [['de-DE', 'en'], 'de'],
    [['de-AT'], 'de'],
    [['pt'], 'pt-BR'],
    [['pt-BR'], 'pt-BR'],
    [['pt-PT'], 'pt-BR'],
    [['fr-CA', 'en'], 'fr'],
    [['es-MX'], 'es'],
    [['en-GB'], 'en'],
    [['nl-NL', 'de'], 'de'],
    [['ja', 'zh-CN'], 'en'],
    [[], 'en'],
    [['PT-br'], 'pt-BR'],
  ];
  for (const [languages, expected] of cases) {
    it(`${JSON.stringify(languages)} → ${expected}`, () => expect(matchLocale(languages)).to.equal(expected));
  }
});

describe('web: quantities in the locale number format', () => {
  it('shows 1.5 as "1,5" in German and "1.5" in English, whole numbers without grouping', () => {
    expect(formatQuantity(1.5, 'de')).to.equal('1,5');
    expect(formatQuantity(1.5, 'en')).to.equal('1.5');
    expect(formatQuantity(1.5, 'pt-BR')).to.equal('1,5');
    expect(formatQuantity(1000, 'en')).to.equal('1000');
    expect(formatQuantity(1000, 'de')).to.equal('1000');
    expect(formatQuantity(0.125, 'fr')).to.equal('0,125');
  });

  const typed: [string, number | null][] = [
    ['1,5', 1.5],
    ['1.5', 1.5],
    ['2', 2],
    [' 0,25 ', 0.25],
    [',5', 0.5],
    ['3,', 3],
    ['1.234,5', 1234.5],
    ['1,234.5', 1234.5],
    ['1 234,5', 1234.5],
    ['1\u202f234,5', 1234.5],
    ['1.234.567', 1234567],
    ['1,234,567', 1234567],
    ['', null],
    ['   ', null],
  ];
  for (const [text, value] of typed) {
    it(`reads ${JSON.stringify(text)} as ${value}`, () => expect(parseQuantity(text)).to.equal(value));
  }

  for (const bad of ['abc', '1,2,3,4', '1.2.3,4', '1,2.3.4', '-1', '1e3', '1.23.4', '..', ',']) {
    it(`refuses ${JSON.stringify(bad)}`, () => expect(parseQuantity(bad)).to.be.NaN);
  }

  it('reads back what it shows, in every locale', () => {
    for (const locale of ['en', 'de', 'fr', 'es', 'pt-BR'] as const)
      for (const n of [0, 0.5, 1.5, 2, 12.125, 999999]) expect(parseQuantity(formatQuantity(n, locale))).to.equal(n);
  });
});
