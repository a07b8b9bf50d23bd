import { t } from '../lib/i18n.ts';

/** The page while the app (or its signed-in shell) is still opening. */
export function Busy() {
  return <main class="page" aria-busy="true" />;
}

/** The page when the app could not start (e.g. its signed-in shell could not be loaded). */
export function CannotStart({ reason }: { reason: string }) {
  return (
    <main class="page">
      <h1>{t('app.cannotStart')}</h1>
      <p role="alert">{reason}</p>
    </main>
  );
}
