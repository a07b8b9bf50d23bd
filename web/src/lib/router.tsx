/** A small history router: the app's routes are few and flat (contract §9 pages). */
import type { FamilyClient, Session } from '@family-shopping/client';
import type { ComponentChildren, PartialAnchorHTMLAttributes } from 'preact';
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());
if (typeof window !== 'undefined') window.addEventListener('popstate', notify);

/** What the router hands every signed-in page. */
export interface PageProps {
  client: FamilyClient;
  session: Session;
  params: Record<string, string>;
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  history[options.replace ? 'replaceState' : 'pushState'](null, '', to);
  notify();
  window.scrollTo(0, 0);
}

export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const l = () => setPath(location.pathname);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return path;
}

/** Matches `pattern` (`/lists/:id`) against `path`; the params or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const s = path.replace(/\/+$/, '').split('/');
  if (path === '/') return pattern === '/' ? {} : null;
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i]!.startsWith(':')) {
      try {
        params[p[i]!.slice(1)] = decodeURIComponent(s[i]!);
      } catch {
        return null;
      }
    } else if (p[i] !== s[i]) return null;
  }
  return params;
}

type LinkProps = PartialAnchorHTMLAttributes<HTMLAnchorElement> & { href: string; children?: ComponentChildren };

/** An `<a>` that navigates inside the app (a modified click opens a tab as usual). */
export function Link({ href, onClick, ...rest }: LinkProps) {
  return (
    <a
      href={href}
      onClick={(e) => {
        onClick?.(e as never);
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(href);
      }}
      {...(rest as Record<string, unknown>)}
    />
  );
}
