import type { FamilyClient } from '@family-shopping/client';
import { useEffect, useState } from 'preact/hooks';
import { boot, client$, familyName$, session$ } from './lib/app.ts';
import { useObservable } from './lib/hooks.ts';
import { t, useLocale, type MessageKey } from './lib/i18n.ts';
import { Link, match, navigate, usePath, type PageProps } from './lib/router.tsx';
import { StatusBar } from './components/StatusBar.tsx';
import { LoginPage } from './pages/Login.tsx';
import { RegisterPage, InvitePage } from './pages/Register.tsx';
import { ForgotPasswordPage, ResetPasswordPage } from './pages/Password.tsx';
import { ConfirmEmailPage } from './pages/ConfirmEmail.tsx';
import { ListsPage } from './pages/Lists.tsx';
import { ListPage } from './pages/List.tsx';
import { StoresPage } from './pages/Stores.tsx';
import { RecipesPage, RecipePage } from './pages/Recipes.tsx';
import { CatalogPage } from './pages/Catalog.tsx';
import { FamilyPage } from './pages/Family.tsx';
import { AccountPage } from './pages/Account.tsx';

type Route = { path: string; title: MessageKey; page: (p: PageProps) => preact.JSX.Element };

const APP_ROUTES: Route[] = [
  { path: '/', title: 'nav.lists', page: ListsPage },
  { path: '/lists/:listId', title: 'title.list', page: ListPage },
  { path: '/stores', title: 'nav.stores', page: StoresPage },
  { path: '/recipes', title: 'nav.recipes', page: RecipesPage },
  { path: '/recipes/:recipeId', title: 'title.recipe', page: RecipePage },
  { path: '/catalog', title: 'nav.catalog', page: CatalogPage },
  { path: '/family', title: 'nav.family', page: FamilyPage },
  { path: '/account', title: 'nav.account', page: AccountPage },
];

const PUBLIC_ROUTES: {
  path: string;
  title: MessageKey;
  page: (p: { client: FamilyClient; params: Record<string, string> }) => preact.JSX.Element;
  signedOutOnly?: boolean;
}[] = [
  { path: '/login', title: 'title.signIn', page: LoginPage, signedOutOnly: true },
  { path: '/register', title: 'title.register', page: RegisterPage, signedOutOnly: true },
  { path: '/forgot-password', title: 'title.forgotPassword', page: ForgotPasswordPage },
  { path: '/reset-password/:token', title: 'title.resetPassword', page: ResetPasswordPage },
  { path: '/invite/:token', title: 'title.invite', page: InvitePage },
  { path: '/confirm-email/:token', title: 'title.confirmEmail', page: ConfirmEmailPage },
];

const NAV: [string, MessageKey][] = [
  ['/', 'nav.lists'],
  ['/stores', 'nav.stores'],
  ['/recipes', 'nav.recipes'],
  ['/catalog', 'nav.catalog'],
  ['/family', 'nav.family'],
  ['/account', 'nav.account'],
];

export function App() {
  // Every page reads its words with t(): a new language re-renders the whole app from here.
  const locale = useLocale();
  const path = usePath();
  const client = useObservable(() => client$, [], client$.value);
  const session = useObservable(() => session$, [], session$.value);
  const familyName = useObservable(() => familyName$, [], familyName$.value);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    boot().catch((err) => setFailed(String(err?.message ?? err)));
  }, []);

  const pub = PUBLIC_ROUTES.map((r) => ({ r, params: match(r.path, path) })).find((x) => x.params);
  const app = APP_ROUTES.map((r) => ({ r, params: match(r.path, path) })).find((x) => x.params);

  useEffect(() => {
    if (pub?.r.signedOutOnly && session) navigate('/', { replace: true });
    else if (!pub && !session)
      navigate(`/login${path !== '/' && path !== '/account' ? `?next=${encodeURIComponent(path)}` : ''}`, {
        replace: true,
      });
  }, [path, !!session, !!pub]);

  const title = t(pub?.r.title ?? app?.r.title ?? 'app.notFound');
  useEffect(() => {
    document.title = t('app.title', { page: title });
  }, [title, locale]);

  if (failed) {
    return (
      <main class="page">
        <h1>{t('app.cannotStart')}</h1>
        <p role="alert">{failed}</p>
      </main>
    );
  }
  if (!client) return <main class="page" aria-busy="true" />;

  if (pub) {
    const Page = pub.r.page;
    return (
      <div class="shell shell-public">
        <main class="page">
          <Page client={client} params={pub.params!} />
        </main>
      </div>
    );
  }
  if (!session) return <main class="page" aria-busy="true" />;

  const Page = app?.r.page;
  return (
    <div class="shell">
      <header class="topbar">
        <Link href="/" class="brand">
          {familyName ?? session.family.name}
        </Link>
        <StatusBar client={client} />
      </header>
      <main class="page" id="main">
        {Page ? (
          <Page client={client} session={session} params={app!.params!} key={path} />
        ) : (
          <>
            <h1>{t('app.notFound')}</h1>
            <p>
              {t('app.notFoundText')} <Link href="/">{t('app.backToLists')}</Link>
            </p>
          </>
        )}
      </main>
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
