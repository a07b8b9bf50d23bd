import type { FamilyClient } from '@family-shopping/client';
import { useEffect, useState } from 'preact/hooks';
import { boot, client$, familyName$, session$ } from './lib/app.ts';
import { useObservable } from './lib/hooks.ts';
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

type Route = { path: string; title: string; page: (p: PageProps) => preact.JSX.Element };

const APP_ROUTES: Route[] = [
  { path: '/', title: 'Lists', page: ListsPage },
  { path: '/lists/:listId', title: 'List', page: ListPage },
  { path: '/stores', title: 'Stores', page: StoresPage },
  { path: '/recipes', title: 'Recipes', page: RecipesPage },
  { path: '/recipes/:recipeId', title: 'Recipe', page: RecipePage },
  { path: '/catalog', title: 'Catalog', page: CatalogPage },
  { path: '/family', title: 'Family', page: FamilyPage },
  { path: '/account', title: 'Account', page: AccountPage },
];

const PUBLIC_ROUTES: {
  path: string;
  title: string;
  page: (p: { client: FamilyClient; params: Record<string, string> }) => preact.JSX.Element;
  signedOutOnly?: boolean;
}[] = [
  { path: '/login', title: 'Sign in', page: LoginPage, signedOutOnly: true },
  { path: '/register', title: 'Create account', page: RegisterPage, signedOutOnly: true },
  { path: '/forgot-password', title: 'Forgot password', page: ForgotPasswordPage },
  { path: '/reset-password/:token', title: 'Set a new password', page: ResetPasswordPage },
  { path: '/invite/:token', title: 'Join your family', page: InvitePage },
  { path: '/confirm-email/:token', title: 'Confirm email', page: ConfirmEmailPage },
];

const NAV = [
  ['/', 'Lists'],
  ['/stores', 'Stores'],
  ['/recipes', 'Recipes'],
  ['/catalog', 'Catalog'],
  ['/family', 'Family'],
  ['/account', 'Account'],
] as const;

export function App() {
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

  const title = pub?.r.title ?? app?.r.title ?? 'Not found';
  useEffect(() => {
    document.title = `${title} · Family Shopping`;
  }, [title]);

  if (failed) {
    return (
      <main class="page">
        <h1>Family Shopping cannot start</h1>
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
            <h1>Not found</h1>
            <p>
              There is no page here. <Link href="/">Back to the lists</Link>
            </p>
          </>
        )}
      </main>
      <nav class="tabbar" aria-label="Main">
        {NAV.map(([href, label]) => {
          const current = href === '/' ? path === '/' || path.startsWith('/lists/') : path.startsWith(href);
          return (
            <Link href={href} aria-current={current ? 'page' : undefined}>
              {label}
            </Link>
          );
        })}
      </nav>
    </div>
  );
}
