/**
 * The signed-in shell: the header with the family's name and the status, the signed-in pages
 * and the tab bar, over the one FamilyClient (lib/app.ts: the SDK, RxDB, replication). A chunk
 * of its own: App.tsx imports it as soon as there is a session (at once on load when one is
 * kept, right after sign-in otherwise), so the public pages load none of it.
 */
import type { Session } from '@family-shopping/client';
import { useEffect, useState } from 'preact/hooks';
import { boot, client$, familyName$ } from './lib/app.ts';
import { useObservable } from './lib/hooks.ts';
import { t } from './lib/i18n.ts';
import { Link, type PageProps } from './lib/router.tsx';
import { CannotStart } from './components/Busy.tsx';
import { Frame } from './components/Frame.tsx';
import { StatusBar } from './components/StatusBar.tsx';
import { ListsPage } from './pages/Lists.tsx';
import { ListPage } from './pages/List.tsx';
import { StoresPage } from './pages/Stores.tsx';
import { RecipesPage, RecipePage } from './pages/Recipes.tsx';
import { CatalogPage } from './pages/Catalog.tsx';
import { FamilyPage } from './pages/Family.tsx';
import { AccountPage } from './pages/Account.tsx';

/** The page of each signed-in route of App.tsx (by its path pattern). */
const PAGES: Record<string, (p: PageProps) => preact.JSX.Element> = {
  '/': ListsPage,
  '/lists/:listId': ListPage,
  '/stores': StoresPage,
  '/recipes': RecipesPage,
  '/recipes/:recipeId': RecipePage,
  '/catalog': CatalogPage,
  '/family': FamilyPage,
  '/account': AccountPage,
};

export interface ShellProps {
  path: string;
  session: Session;
  /** The signed-in route that matched `path` (null: none, "Page not found"). */
  route: { path: string; params: Record<string, string> } | null;
}

export function Shell({ path, session, route }: ShellProps) {
  const client = useObservable(() => client$, [], client$.value);
  const familyName = useObservable(() => familyName$, [], familyName$.value);
  const [failed, setFailed] = useState<string | null>(null);
  // Once per sign-in (the shell is mounted while there is a session).
  useEffect(() => {
    boot().catch((err) => setFailed(String(err?.message ?? err)));
  }, []);

  if (failed) return <CannotStart reason={failed} />;
  const name = familyName ?? session.family.name;
  // The frame is painted while the local database opens; the page once the client is open.
  if (!client) return <Frame path={path} familyName={name} />;

  const Page = route ? PAGES[route.path] : undefined;
  return (
    <Frame path={path} familyName={name} status={<StatusBar client={client} />}>
      <main class="page" id="main">
        {Page ? (
          <Page client={client} session={session} params={route!.params} key={path} />
        ) : (
          <>
            <h1>{t('app.notFound')}</h1>
            <p>
              {t('app.notFoundText')} <Link href="/">{t('app.backToLists')}</Link>
            </p>
          </>
        )}
      </main>
    </Frame>
  );
}
