import type { Observable } from 'rxjs';
import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from './i18n.ts';

/** The latest value of an observable (re-subscribed when `deps` change). */
export function useObservable<T>(make: () => Observable<T> | null | undefined, deps: unknown[], initial: T): T {
  const [value, setValue] = useState<T>(initial);
  useEffect(() => {
    let obs: Observable<T> | null | undefined;
    try {
      obs = make();
    } catch {
      obs = null; // e.g. an SDK without that view: render the initial value
    }
    if (!obs) {
      setValue(initial);
      return;
    }
    const sub = obs.subscribe({ next: (v) => setValue(() => v), error: () => undefined });
    return () => sub.unsubscribe();
    // The caller's deps list says when to resubscribe (like useEffect's).
  }, deps);
  return value;
}

/** Runs an async action, keeping its error message and busy flag for the form that ran it. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const mounted = useRef(true);
  useEffect(() => () => void (mounted.current = false), []);
  const run = async <T>(fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (err) {
      if (mounted.current) setError(errorMessage(err));
      return undefined;
    } finally {
      if (mounted.current) setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

/** Whether an error means the server could not be reached (offline). */
export function isNetworkError(err: unknown): boolean {
  const e = err as { status?: number; code?: string } | null;
  return e?.code === 'network_error' || e?.status === 0;
}

/** What to tell a person about an error from the SDK or the server. */
export function errorMessage(err: unknown): string {
  const e = err as {
    status?: number;
    code?: string;
    detail?: string;
    errors?: { path: string; message: string }[];
    message?: string;
  };
  if (isNetworkError(err)) return t('error.offline');
  if (e?.errors?.length) return e.errors.map((x) => (x.path ? `${x.path}: ${x.message}` : x.message)).join('; ');
  if (e?.detail) return e.detail;
  return e?.message ?? t('error.unknown');
}
