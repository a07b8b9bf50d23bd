// The web app's languages (contract §12, docs/web.md "Adding a language"): every catalog in
// web/src/locales has exactly the keys of en.json, with the same ICU arguments, and every page
// and component takes its words from the catalogs (no screen string written in a .tsx file).
import { expect } from 'chai';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { IntlMessageFormat } from 'intl-messageformat';
import { LOCALES } from '@family-shopping/client/protocol';

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/src');
const LOCALE_DIR = path.join(WEB, 'locales');

type Catalog = Record<string, string>;
const read = (file: string): Catalog => JSON.parse(readFileSync(path.join(LOCALE_DIR, file), 'utf8')) as Catalog;
const files = readdirSync(LOCALE_DIR).filter((f) => f.endsWith('.json'));
const en = read('en.json');

/** The ICU message AST's element types (@formatjs/icu-messageformat-parser's TYPE). */
const TYPE = { argument: 1, number: 2, date: 3, time: 4, select: 5, plural: 6, tag: 8 } as const;
interface Element {
  type: number;
  value?: unknown;
  options?: Record<string, { value: Element[] }>;
  children?: Element[];
}
const parse = (message: string) => new IntlMessageFormat(message, 'en').getAst() as unknown as Element[];

/** The ICU arguments a message uses (`{name}`, `{n, plural, …}`, `<link>`), with their types. */
function argumentsOf(message: string): string[] {
  const found = new Set<string>();
  const walk = (elements: Element[]) => {
    for (const e of elements) {
      if (e.type === TYPE.argument || e.type === TYPE.number || e.type === TYPE.date || e.type === TYPE.time)
        found.add(`${e.value}`);
      if (e.type === TYPE.plural || e.type === TYPE.select) {
        found.add(`${e.value}:${e.type === TYPE.plural ? 'plural' : 'select'}`);
        for (const option of Object.values(e.options ?? {})) walk(option.value);
      }
      if (e.type === TYPE.tag) {
        found.add(`<${e.value}>`);
        walk(e.children ?? []);
      }
    }
  };
  walk(parse(message));
  return [...found].sort();
}

describe('web: the message catalogs', () => {
  it('has a catalog for every locale of the protocol (LOCALES), and none other', () => {
    const present = files.map((f) => f.replace(/\.json$/, '')).sort();
    expect(present).to.deep.equal([...LOCALES].sort());
  });

  it('English: every message is valid ICU', () => {
    for (const [key, message] of Object.entries(en)) expect(() => parse(message), key).not.to.throw();
  });

  it("shows a list's progress with the locale's digit grouping (2,000; 2.000; 2 000)", () => {
    const shown = files.map((f) => {
      const locale = f.replace(/\.json$/, '');
      const text = new IntlMessageFormat(read(f)['lists.progress'], locale).format({ checked: 1500, total: 2000 });
      const grouped = (n: number) => new Intl.NumberFormat(locale).format(n);
      return [locale, `${text}`.includes(grouped(1500)) && `${text}`.includes(grouped(2000))];
    });
    expect(shown.filter(([, ok]) => !ok)).to.deep.equal([]);
  });

  for (const file of files.filter((f) => f !== 'en.json')) {
    describe(file, () => {
      const catalog = read(file);
      it('has every key of en.json and no other', () => {
        expect(
          Object.keys(catalog).filter((k) => !(k in en)),
          'keys en.json does not have',
        ).to.deep.equal([]);
        expect(
          Object.keys(en).filter((k) => !(k in catalog)),
          'keys missing',
        ).to.deep.equal([]);
      });
      it('uses the same ICU arguments, plurals and tags as English in every message', () => {
        // The same argument names and tags; a plural in one language may be a plain "{n}" in
        // another, so the kind of argument is not compared.
        const names = (message: string) => [...new Set(argumentsOf(message).map((a) => a.split(':')[0]))].sort();
        for (const [key, message] of Object.entries(catalog)) {
          if (key in en) expect(names(message), key).to.deep.equal(names(en[key]!));
        }
      });
      it('translates the messages (not English copies, beyond names the same in both)', () => {
        const same = Object.keys(en).filter((k) => catalog[k] === en[k] && /[a-z]{4,}/.test(en[k]!));
        expect(same.length, same.join(', ')).to.be.below(Object.keys(en).length / 10);
      });
    });
  }
});

/** Attributes whose value people read or hear. */
const TEXT_ATTRIBUTES = new Set(['aria-label', 'placeholder', 'title', 'label', 'hint', 'alt', 'aria-description']);
/** Calls whose string arguments reach the screen. */
const TEXT_CALLS = new Set(['confirm', 'alert', 'setNotice', 'setError', 'setProblem', 'Error']);
const hasWords = (s: string) => /\p{L}{2,}/u.test(s);

/** Screen strings written in a TSX source instead of a catalog: JSX text, text attributes,
 * strings inside JSX expressions, strings passed to confirm()/setNotice()/new Error(). */
export function literalStrings(source: string, fileName = 'x.tsx'): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const at = (node: ts.Node, text: string) => {
    const { line } = file.getLineAndCharacterOfPosition(node.getStart());
    found.push(`${fileName}:${line + 1}: ${JSON.stringify(text.trim())}`);
  };
  /** String literals inside an expression, except those that are keys or data (t('…'), ids). */
  const stringsIn = (node: ts.Node) => {
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n)) {
        // t('key'), tRich('key'), and calls that do not show their arguments
        const callee = n.expression.getText(file);
        if (!TEXT_CALLS.has(callee)) return;
      }
      if (ts.isBinaryExpression(n) && /^[=!]==?$/.test(n.operatorToken.getText(file))) return; // comparisons
      if (ts.isElementAccessExpression(n) || ts.isPropertyAccessExpression(n)) return;
      if (ts.isJsxElement(n) || ts.isJsxSelfClosingElement(n) || ts.isJsxFragment(n)) return; // visited on their own
      if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && hasWords(n.text)) at(n, n.text);
      if (ts.isTemplateExpression(n)) {
        const parts = [n.head.text, ...n.templateSpans.map((s) => s.literal.text)].join(' ');
        if (hasWords(parts)) at(n, parts);
      }
      ts.forEachChild(n, visit);
    };
    visit(node);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isJsxText(node) && hasWords(node.text)) at(node, node.text);
    if (ts.isJsxExpression(node) && node.expression && !ts.isJsxAttribute(node.parent)) stringsIn(node.expression);
    if (ts.isJsxAttribute(node) && node.initializer) {
      const name = node.name.getText(file);
      if (TEXT_ATTRIBUTES.has(name)) {
        if (ts.isStringLiteral(node.initializer) && hasWords(node.initializer.text)) at(node, node.initializer.text);
        if (ts.isJsxExpression(node.initializer) && node.initializer.expression) stringsIn(node.initializer.expression);
      }
    }
    if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && TEXT_CALLS.has(node.expression.getText(file)))
      for (const arg of node.arguments ?? []) stringsIn(arg);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const tsxFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? tsxFiles(p) : p.endsWith('.tsx') ? [p] : [];
  });

describe('web: no screen string outside the catalogs', () => {
  it('finds a planted hard-coded string (the check works)', () => {
    const planted = [
      'export const A = () => <p>Hello there</p>;',
      'export const B = () => <input placeholder="New list" />;',
      "export const C = (x: boolean) => <h1>{x ? 'Archived lists' : t('lists.heading')}</h1>;",
      'export const D = (n: string) => <button aria-label={`Edit ${n}`} />;',
      "export const E = () => confirm('Delete it?');",
    ].join('\n');
    expect(literalStrings(planted)).to.have.length(5);
    const clean = [
      'export const A = () => <p class="empty" id="x">{t(\'list.empty\')}</p>;',
      "export const B = (n: string) => <button aria-label={t('list.editNamed', { name: n })}>✎</button>;",
      "export const C = (s: { kind: string }) => <p>{s.kind === 'removed' ? t('a') : null}</p>;",
      'export const D = (q: number) => <span>{`≈${q}`} · </span>;',
    ].join('\n');
    expect(literalStrings(clean)).to.deep.equal([]);
  });

  it('web/src/**/*.tsx write no screen string of their own', () => {
    const found = tsxFiles(WEB).flatMap((f) => literalStrings(readFileSync(f, 'utf8'), path.relative(WEB, f)));
    expect(found, found.join('\n')).to.deep.equal([]);
  });
});
