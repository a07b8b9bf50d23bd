// The emails' message catalogs (server/mail/messages/): every language has every key of the
// English catalog and no other, each message is valid ICU, and it takes the same arguments and
// tags as the English one (a translation that dropped `{link}`'s sentence partner or renamed
// `{userName}` would fail a mail at send time, or lose a value silently).
import { expect } from 'chai';
import { IntlMessageFormat } from 'intl-messageformat';
import { LOCALES } from '@family-shopping/client/protocol';
import { en, MAIL_MESSAGES, type MailMessageKey } from '../../../server/mail/messages/index.js';
import { MAIL_FORMATS } from '../../../server/mail/templates.js';

type Element = { type: number; value?: string; children?: Element[]; options?: Record<string, { value: Element[] }> };

/** Argument and tag names a message uses (`#` of a plural is no argument). */
function argumentsOf(elements: Element[], into = new Set<string>()): Set<string> {
  for (const el of elements) {
    if (el.type !== 0 && el.type !== 7 && el.value) into.add(el.type === 8 ? `<${el.value}>` : el.value);
    if (el.children) argumentsOf(el.children, into);
    for (const option of Object.values(el.options ?? {})) argumentsOf(option.value, into);
  }
  return into;
}

const KEYS = Object.keys(en).sort() as MailMessageKey[];

describe('email message catalogs', () => {
  it('has a catalog for each of the five languages', () => {
    expect(Object.keys(MAIL_MESSAGES).sort()).to.deep.equal([...LOCALES].sort());
  });

  for (const locale of LOCALES) {
    describe(locale, () => {
      const messages = MAIL_MESSAGES[locale];

      it('has every key of the English catalog, and no other', () => {
        expect(Object.keys(messages).sort()).to.deep.equal(KEYS);
      });

      it('writes valid ICU messages with the arguments and tags of the English ones', () => {
        for (const key of KEYS) {
          const text = messages[key];
          expect(text, key).to.be.a('string').and.not.equal('');
          const format = new IntlMessageFormat(text!, locale, MAIL_FORMATS);
          const english = new IntlMessageFormat(en[key], 'en', MAIL_FORMATS);
          const args = [...argumentsOf(format.getAst() as Element[])].sort();
          expect(args, `${locale} ${key}`).to.deep.equal([...argumentsOf(english.getAst() as Element[])].sort());
        }
      });

      it('is a translation: its texts are not the English ones', function () {
        if (locale === 'en') this.skip();
        const same = KEYS.filter((key) => messages[key] === en[key]);
        expect(same, `${locale} keys left in English`).to.deep.equal([]);
      });
    });
  }
});
