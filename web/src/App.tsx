/**
 * The app's entry: routes, redirects and the public pages (sign in, register, invitation,
 * password reset, email confirmation), which need no local database. The signed-in shell
 * (Shell.tsx: the SDK, RxDB, replication and the signed-in pages) is a chunk of its own,
 * imported as soon as there is a session; the public pages never load it (docs/web.md "Size").
 */
import type { Session } from '@family-shopping/client/auth';
import { useEffect, useState } from 'preact/hooks';
import { useObservable } from './lib/hooks.ts';
import { t, useLocale, type MessageKey } from './lib/i18n.ts';
import { match, navigate, usePath } from './lib/router.tsx';
import { languageReady, session$ } from './lib/session.ts';
import { Busy, CannotStart } from './components/Busy.tsx';
import { Frame } from './components/Frame.tsx';
import { LoginPage } from './pages/Login.tsx';
import { RegisterPage, InvitePage } from './pages/Register.tsx';
import { ForgotPasswordPage, ResetPasswordPage } from './pages/Password.tsx';
import { ConfirmEmailPage } from './pages/ConfirmEmail.tsx';
import type { ShellProps } from './Shell.tsx';

/** The signed-in routes; their pages are in Shell.tsx. */
const APP_ROUTES: { path: string; title: MessageKey }[] = [
  { path: '/', title: 'nav.lists' },
  { path: '/lists/:listId', title: 'title.list' },
  { path: '/stores', title: 'nav.stores' },
  { path: '/recipes', title: 'nav.recipes' },
  { path: '/recipes/:recipeId', title: 'title.recipe' },
  { path: '/catalog', title: 'nav.catalog' },
  { path: '/family', title: 'nav.family' },
  { path: '/account', title: 'nav.account' },
];

const PUBLIC_ROUTES: {
  path: string;
  title: MessageKey;
  page: (p: { params: Record<string, string> }) => preact.JSX.Element;
  signedOutOnly?: boolean;
}[] = [
  { path: '/login', title: 'title.signIn', page: LoginPage, signedOutOnly: true },
  { path: '/register', title: 'title.register', page: RegisterPage, signedOutOnly: true },
  { path: '/forgot-password', title: 'title.forgotPassword', page: ForgotPasswordPage },
  { path: '/reset-password/:token', title: 'title.resetPassword', page: ResetPasswordPage },
  { path: '/invite/:token', title: 'title.invite', page: InvitePage },
  { path: '/confirm-email/:token', title: 'title.confirmEmail', page: ConfirmEmailPage },
];

type ShellComponent = (p: ShellProps) => preact.JSX.Element;
let shellLoad: Promise<ShellComponent> | null = null;

/** The signed-in shell's chunk, imported once (again after a failed try). */
function loadShell(): Promise<ShellComponent> {
  shellLoad ??= import('./Shell.tsx').then(
    (m) => m.Shell,
    (err) => {
      shellLoad = null;
      throw err;
    },
  );
  return shellLoad;
}

// A session kept from an earlier visit: the shell's chunk is fetched while this one renders.
if (session$.value) loadShell().catch(() => undefined);

/** The shell component once its chunk is in; starts loading it while there is a session. */
function useShell(session: Session | null): { Shell: ShellComponent | null; failed: string | null } {
  const [state, setState] = useState<{ Shell: ShellComponent | null; failed: string | null }>({
    Shell: null,
    failed: null,
  });
  useEffect(() => {
    if (!session || state.Shell) return;
    loadShell().then(
      (Shell) => setState({ Shell, failed: null }),
      (err) => setState({ Shell: null, failed: String(err?.message ?? err) }),
    );
  }, [!!session]);
  return state;
}

export function App() {
  // Every page reads its words with t(): a new language re-renders the whole app from here.
  const locale = useLocale();
  const path = usePath();
  const session = useObservable(() => session$, [], session$.value);
  // The first render waits for the language of the session or the browser (no English flash).
  const [ready, setReady] = useState(false);
  useEffect(() => {
    void languageReady.then(() => setReady(true));
  }, []);
  const { Shell, failed } = useShell(session);

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

  if (!ready) return <Busy />;

  if (pub) {
    const Page = pub.r.page;
    return (
      <div class="shell shell-public">
        <main class="page">
          <Page params={pub.params!} />
        </main>
      </div>
    );
  }
  if (!session) return <Busy />;
  if (failed) return <CannotStart reason={failed} />;
  // The signed-in frame is painted while the shell's chunk loads.
  if (!Shell) return app ? <Frame path={path} familyName={session.family.name} /> : <Busy />;
  return <Shell path={path} session={session} route={app ? { path: app.r.path, params: app.params! } : null} />;
}
