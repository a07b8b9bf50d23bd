/**
 * The signed-in page's frame: the header (the family's name, the status) and the tab bar around
 * the page. In the entry chunk, so the frame is painted while the signed-in shell's chunk loads
 * and its local database opens (App.tsx, Shell.tsx); the same markup then stays in place.
 */
import type { ComponentChildren } from 'preact';
import { t, type MessageKey } from '../lib/i18n.ts';
import { Link } from '../lib/router.tsx';

const NAV: [string, MessageKey][] = [
  ['/', 'nav.lists'],
  ['/stores', 'nav.stores'],
  ['/recipes', 'nav.recipes'],
  ['/catalog', 'nav.catalog'],
  ['/family', 'nav.family'],
  ['/account', 'nav.account'],
];

export function Frame({
  path,
  familyName,
  status,
  children,
}: {
  path: string;
  familyName: string;
  /** The status bar (components/StatusBar.tsx); while the shell opens, an empty one. */
  status?: ComponentChildren;
  /** The page; none: the page is still opening (busy). */
  children?: ComponentChildren;
}) {
  return (
    <div class="shell">
      <header class="topbar">
        <Link href="/" class="brand">
          {familyName}
        </Link>
        {status ?? <div role="status" class="status" />}
      </header>
      {children ?? <main class="page" id="main" aria-busy="true" />}
      <nav class="tabbar" aria-label={t('nav.main')}>
        {NAV.map(([href, label]) => {
          const current = href === '/' ? path === '/' || path.startsWith('/lists/') : path.startsWith(href);
          return (
            <Link href={href} aria-current={current ? 'page' : undefined}>
              {t(label)}
            </Link>
          );
        })}
      </nav>
    </div>
  );
}
