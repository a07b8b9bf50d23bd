/**
 * Serves the built web app (web/dist) at `/`, contract §9: a file when one matches the path,
 * else the app's index.html (the app routes on the client). `/api`, `/api/…`, `/healthz` and
 * `/readyz` are never answered here, so the API keeps its problem+json answers.
 *
 * Caching: Vite's hashed files under /assets/ never change under a name (a year, immutable);
 * index.html, the service worker and the manifest must be revalidated on every load (no-cache
 * with an ETag), or a deploy would never reach an installed app. A missing file under /assets/
 * is a plain 404 (an HTML page served as a script would be cached by the browser as one).
 *
 * Pages carry a Content-Security-Policy (contentSecurityPolicy); `/robots.txt` disallows everything.
 *
 * Without a build (web/dist absent, e.g. tests that never ran `npm run build`) app paths answer
 * 503 with a short page saying how to build it; the API is unaffected.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, Next } from 'koa';
import { AppError } from '../errors.js';

export const WEB_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';
/** Precompressed siblings written by the build (web/vite.config.ts), best first. */
const ENCODINGS = [
  ['br', '.br'],
  ['gzip', '.gz'],
] as const;

/** True for paths the API and the probes own: the app never answers them. */
export function isServerPath(p: string): boolean {
  return p === '/api' || p.startsWith('/api/') || p === '/healthz' || p === '/readyz';
}

/**
 * The file under `root` a URL path names, or null when it names none safely: undecodable,
 * NUL bytes, `..` or dot-file segments, backslashes (Windows separators) never reach the disk.
 */
export function resolveSafe(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const segments = decoded.split('/').filter((s) => s !== '');
  if (segments.some((s) => s.startsWith('.'))) return null;
  const base = path.resolve(root);
  const file = path.resolve(base, ...segments);
  if (file !== base && !file.startsWith(base + path.sep)) return null;
  return file;
}

async function fileStat(file: string) {
  try {
    const s = await stat(file);
    return s.isFile() ? s : null;
  } catch {
    return null;
  }
}

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Family Shopping</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<h1>The web app is not built</h1><p>Run <code>npm run build</code> (or <code>npm install</code>) and reload. The API is up at <code>/api</code>.</p></html>`;

/** `/robots.txt`: the app holds a family's private data; nothing of it is for crawlers. */
export const ROBOTS_TXT = 'User-agent: *\nDisallow: /\n';

const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The Content-Security-Policy of the app's pages (api-contract §13 "Headers"): scripts, styles,
 * fonts, the manifest and the service worker come from the app's own origin only (no inline
 * script: the build emits none, web/vite.config.ts); `connect-src` is the app's own origin and
 * its WebSocket on the same host (`'self'` alone does not cover ws:/wss: in every browser, so the
 * host the page was asked for is named with the scheme the page was served over; a Host header
 * that is not a plain host[:port] names none); no plugins, no framing.
 */
export function contentSecurityPolicy(host: string, secure: boolean): string {
  const ws = HOST.test(host) ? ` ${secure ? 'wss' : 'ws'}://${host}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self'${ws}`,
    "manifest-src 'self'",
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export interface WebAppOptions {
  /** The built app (default web/dist beside the server). */
  root?: string;
}

export function serveWebApp(options: WebAppOptions = {}) {
  const root = path.resolve(options.root ?? WEB_DIST);
  return async (ctx: Context, next: Next) => {
    if (isServerPath(ctx.path)) return next();
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      ctx.set('Allow', 'GET, HEAD, OPTIONS');
      return;
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      throw new AppError(
        405,
        'method_not_allowed',
        `${ctx.method} is not allowed here; allowed: GET, HEAD, OPTIONS`,
        undefined,
        {
          Allow: 'GET, HEAD, OPTIONS',
        },
      );
    }
    if (ctx.path === '/robots.txt') {
      ctx.status = 200;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = ROBOTS_TXT; // Koa sends no body for HEAD
      return;
    }
    const index = path.join(root, 'index.html');
    const found = resolveSafe(root, ctx.path);
    let file: string = found ?? index;
    let st = found ? await fileStat(found) : null;
    if (!st) {
      if (ctx.path.startsWith('/assets/')) {
        ctx.status = 404;
        ctx.type = 'text/plain';
        ctx.body = 'Not found';
        return;
      }
      file = index;
      st = await fileStat(index);
      if (!st) {
        ctx.status = 503;
        ctx.set('Cache-Control', 'no-store');
        ctx.set('Retry-After', '60');
        ctx.type = 'text/html; charset=utf-8';
        ctx.set('Content-Security-Policy', contentSecurityPolicy(ctx.host, ctx.secure));
        ctx.body = NOT_BUILT;
        return;
      }
    }
    const ext = path.extname(file);
    const hashed = path.relative(root, file).startsWith(`assets${path.sep}`);
    ctx.set('Cache-Control', hashed ? IMMUTABLE : REVALIDATE);
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (ext === '.html') {
      // Invitation and reset links carry their token in the path: never send it on as a referrer.
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.set('X-Frame-Options', 'DENY');
      ctx.set('Content-Security-Policy', contentSecurityPolicy(ctx.host, ctx.secure));
    }
    ctx.type = TYPES[ext] ?? 'application/octet-stream';

    // A precompressed sibling when the client accepts its encoding.
    let body = file;
    let size = st.size;
    ctx.vary('Accept-Encoding');
    for (const [encoding, suffix] of ENCODINGS) {
      if (!ctx.get('accept-encoding') || ctx.acceptsEncodings(encoding, 'identity') !== encoding) continue;
      const sibling = await fileStat(file + suffix);
      if (sibling) {
        body = file + suffix;
        size = sibling.size;
        ctx.set('Content-Encoding', encoding);
        break;
      }
    }
    ctx.etag = `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
    ctx.lastModified = st.mtime;
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.length = size;
    if (ctx.method === 'HEAD') return;
    ctx.body = createReadStream(body);
  };
}
