// Lighthouse 12 (issue 23 "First screen"): performance of the web app's pages on a phone, as
// Lighthouse scores it by default (mobile form factor, simulated throttling: slow 4G, 4× CPU),
// with Debian's Chromium (the test flags of test/helpers/browser.ts). Pages: the public ones
// (sign in, register, forgot and reset password, invitation, email confirmation) and the
// signed-in lists page and a list of 200 items. Each page cold and warm:
// - public, cold: Lighthouse's storage reset (no HTTP cache, no service worker);
// - public, warm: the same page again with caches and the service worker of the cold load;
// - signed in, cold: the session kept (localStorage), nothing else: no HTTP cache, no service
//   worker, an empty local database (the SDK syncs first);
// - signed in, warm: again, with the cache, the service worker and the local database.
// Also the JavaScript each page's own requests fetched, gzipped (level 9) from the build.
//
// The build measured is web/dist; BENCH_WEB_BEFORE=<dir> measures another build (e.g. one of an
// earlier commit, `git worktree add`, `npm ci`, `npm run build`, its web/dist) in the same run,
// rounds alternating: each build is served by a front of its own (the server's static handler
// over that directory, the API and its WebSocket proxied to one service).
// BENCH_LIGHTHOUSE_ROUNDS sets the rounds (default 3). BENCH_LIGHTHOUSE_PAGES=signed-in measures only
// the signed-in pages (public: only the public ones). BENCH_LIGHTHOUSE_JSON=<dir> keeps each run's
// Lighthouse report there (bootup-time, mainthread-work-breakdown, long-tasks: where the time went).
// Lighthouse comes from bench/peers (installed on demand).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import Koa from 'koa';
import { machine, pick, ROOT, SMOKE, today, backend } from './lib/common.js';
import { peerRequire } from './lib/peers.js';
import { writeResult } from './lib/report.js';
import { seedList } from './lib/seed.js';
import { Service } from './lib/service.js';
import { fmtSpread, spread } from './lib/stats.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../test/helpers/browser.js';
import { DEFAULT_PASSWORD } from '../test/helpers/factories.js';
import { serveWebApp } from '../server/web/static.js';

const ROUNDS = Number(process.env.BENCH_LIGHTHOUSE_ROUNDS) || pick(3, 1);
const ITEMS = 200;
const AFTER = path.join(ROOT, 'web', 'dist');
const BEFORE = process.env.BENCH_WEB_BEFORE ? path.resolve(process.env.BENCH_WEB_BEFORE) : null;
const ONLY = process.env.BENCH_LIGHTHOUSE_PAGES; // 'signed-in' | 'public' | unset: all
const JSON_DIR = process.env.BENCH_LIGHTHOUSE_JSON ? path.resolve(process.env.BENCH_LIGHTHOUSE_JSON) : null;

interface PageSpec {
  name: string;
  path: string;
  signedIn: boolean;
}

interface Run {
  score: number;
  fcp: number;
  lcp: number;
  tbt: number;
  cls: number;
  js: number;
}

/** A front for one build: its files by the server's own handler, the rest proxied. */
async function front(root: string, api: URL): Promise<{ url: string; close(): Promise<void> }> {
  const web = new Koa();
  web.use(serveWebApp({ root }));
  const handler = web.callback();
  const server = http.createServer((req, res) => {
    if (/^\/(api|healthz|readyz)(\/|$|\?)/.test(req.url ?? '')) {
      const up = http.request(
        { host: api.hostname, port: api.port, method: req.method, path: req.url, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    } else void handler(req, res);
  });
  server.on('upgrade', (req, socket, head) => {
    const up = net.connect(Number(api.port), api.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      up.write(lines.join('\r\n') + '\r\n\r\n');
      if (head.length) up.write(head);
      socket.pipe(up).pipe(socket);
    });
    const end = () => {
      up.destroy();
      socket.destroy();
    };
    up.on('error', end);
    socket.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Gzipped bytes (level 9) of the scripts a page fetched, read from its build. */
function jsOf(root: string, urls: string[]): number {
  let total = 0;
  for (const u of urls) {
    const file = path.join(root, new URL(u).pathname);
    if (existsSync(file)) total += gzipSync(readFileSync(file), { level: 9 }).byteLength;
  }
  return total;
}

async function main() {
  if (!existsSync(path.join(AFTER, 'index.html'))) {
    console.log('web/dist is absent (build the web app first): nothing measured');
    return;
  }
  if (BEFORE && !existsSync(path.join(BEFORE, 'index.html')))
    throw new Error(`BENCH_WEB_BEFORE: no build in ${BEFORE}`);
  const lighthouse = (await import(pathToFileURL(peerRequire.resolve('lighthouse')).href)).default;
  const chromeLauncher = await import(pathToFileURL(peerRequire.resolve('chrome-launcher')).href);
  const puppeteer = (await import(pathToFileURL(peerRequire.resolve('puppeteer-core')).href)).default;

  const service = await Service.start();
  const family = await service.family();
  const { listId } = await seedList(service, family, ITEMS);
  const builds: { name: string; root: string; front: Awaited<ReturnType<typeof front>> }[] = [];
  const api = new URL(service.url);
  if (BEFORE) builds.push({ name: 'before', root: BEFORE, front: await front(BEFORE, api) });
  builds.push({ name: BEFORE ? 'after' : 'this build', root: AFTER, front: await front(AFTER, api) });

  const pages: PageSpec[] = [
    { name: 'sign in', path: '/login', signedIn: false },
    { name: 'register', path: '/register', signedIn: false },
    { name: 'forgot password', path: '/forgot-password', signedIn: false },
    { name: 'reset password', path: '/reset-password/bench-token', signedIn: false },
    { name: 'invitation', path: '/invite/bench-token', signedIn: false },
    { name: 'confirm email', path: '/confirm-email/bench-token', signedIn: false },
    { name: 'lists', path: '/', signedIn: true },
    { name: `list (${ITEMS} items)`, path: `/lists/${listId}`, signedIn: true },
  ]
    .filter((p) => !SMOKE || p.path === '/login' || p.path === '/')
    .filter((p) => !ONLY || p.signedIn === (ONLY === 'signed-in'));

  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM_PATH,
    chromeFlags: ['--headless=new', ...CHROMIUM_ARGS],
    logLevel: 'silent',
  });
  const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}`, defaultViewport: null });
  const runs = new Map<string, Run[]>(); // `${build}|${page}|${cold|warm}`
  const flags = { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance'] };

  async function measure(
    build: (typeof builds)[number],
    spec: PageSpec,
    load: 'cold' | 'warm',
    page: unknown,
  ): Promise<void> {
    const extra =
      load === 'warm'
        ? { disableStorageReset: true }
        : spec.signedIn
          ? { clearStorageTypes: ['file_systems', 'shader_cache', 'service_workers', 'cache_storage', 'indexeddb'] }
          : {
              clearStorageTypes: [
                'file_systems',
                'shader_cache',
                'service_workers',
                'cache_storage',
                'indexeddb',
                'local_storage',
              ],
            };
    const result = await lighthouse(build.front.url + spec.path, { ...flags, ...extra }, undefined, page);
    const lhr = result.lhr;
    const num = (id: string) => Number(lhr.audits[id]?.numericValue ?? NaN);
    const items = (lhr.audits['network-requests']?.details?.items ?? []) as Array<{
      url: string;
      resourceType?: string;
      sessionTargetType?: string;
    }>;
    const scripts = items
      .filter((i) => i.resourceType === 'Script' && (i.sessionTargetType ?? 'page') === 'page')
      .map((i) => i.url)
      .filter((u) => u.startsWith(build.front.url));
    const run: Run = {
      score: Math.round((lhr.categories.performance.score ?? 0) * 100),
      fcp: num('first-contentful-paint'),
      lcp: num('largest-contentful-paint'),
      tbt: num('total-blocking-time'),
      cls: num('cumulative-layout-shift'),
      js: jsOf(build.root, [...new Set(scripts)]),
    };
    const key = `${build.name}|${spec.name}|${load}`;
    runs.set(key, [...(runs.get(key) ?? []), run]);
    if (JSON_DIR) {
      mkdirSync(JSON_DIR, { recursive: true });
      const file = `${key.replace(/[^a-z0-9]+/gi, '-')}-${runs.get(key)!.length}.json`;
      writeFileSync(path.join(JSON_DIR, file), JSON.stringify(lhr));
    }
    console.log(`${key}: ${run.score} (LCP ${run.lcp.toFixed(0)} ms, TBT ${run.tbt.toFixed(0)} ms, JS ${run.js} B gz)`);
  }

  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
        const page = await browser.newPage();
        // A session of its own per front (refresh tokens rotate): from a real login.
        const login = await fetch(`${service.url}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: family.session.user.email, password: DEFAULT_PASSWORD }),
        });
        const session = await login.text();
        for (const spec of pages) {
          await page.goto(build.front.url + '/favicon.svg');
          await page.evaluate(
            (s: string | null) => (s ? localStorage.setItem('family-shopping.session', s) : localStorage.clear()),
            spec.signedIn ? session : null,
          );
          await measure(build, spec, 'cold', page);
          await measure(build, spec, 'warm', page);
        }
        await page.close();
      }
    }
  } finally {
    await browser.disconnect();
    chrome.kill();
    for (const b of builds) await b.front.close();
    await service.close();
  }

  const kb = (n: number) => (n / 1000).toFixed(1);
  const lines = [
    `Measured ${today()}${SMOKE ? ' (smoke run)' : ''}: Lighthouse 12.2.3 (mobile, simulated throttling), Debian Chromium, ${ROUNDS} round(s), ${machine()}. Score: performance, median (min–max); LCP and TBT in ms, median; JS: the page's own scripts, gzipped, KB.`,
    '',
    `| page | load | ${builds.map((b) => `${b.name}: score | LCP | TBT | JS`).join(' | ')} |`,
    `|---|---|${builds.map(() => '---:|---:|---:|---:').join('|')}|`,
  ];
  for (const spec of pages)
    for (const load of ['cold', 'warm'] as const) {
      const cells = builds.map((b) => {
        const r = runs.get(`${b.name}|${spec.name}|${load}`) ?? [];
        const med = (f: (x: Run) => number) => spread(r.map(f)).median;
        return `${fmtSpread(spread(r.map((x) => x.score)), 0)} | ${med((x) => x.lcp).toFixed(0)} | ${med((x) => x.tbt).toFixed(0)} | ${kb(med((x) => x.js))}`;
      });
      lines.push(`| ${spec.name} | ${load} | ${cells.join(' | ')} |`);
    }
  const all = [...runs.entries()].filter(([k]) => k.startsWith(`${builds.at(-1)!.name}|`)).flatMap(([, r]) => r);
  lines.push('', `Lowest score of ${builds.at(-1)!.name}: ${Math.min(...all.map((r) => r.score))}.`);
  writeResult(`lighthouse.${backend()}`, lines.join('\n'), Object.fromEntries(runs));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
