import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, gzipSync, constants as zlib } from 'node:zlib';
import { defineConfig, defaultClientConditions, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { BRAND, ICONS, iconSvg, renderIconPng } from './build/icons.ts';

/** The PNG and SVG icons, drawn at build time (build/icons.ts) and served by the dev server. */
function icons(): Plugin {
  const files = new Map<string, { type: string; body: () => Buffer | string }>([
    ['favicon.svg', { type: 'image/svg+xml', body: iconSvg }],
    ...ICONS.map((i) => [i.file, { type: 'image/png', body: () => renderIconPng(i.size, i.maskable) }] as const),
  ]);
  return {
    name: 'family-shopping-icons',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const f = files.get((req.url ?? '').slice(1));
        if (!f) return next();
        res.setHeader('Content-Type', f.type);
        res.end(f.body());
      });
    },
    generateBundle() {
      for (const [fileName, f] of files) this.emitFile({ type: 'asset', fileName, source: f.body() });
    },
  };
}

/** Writes .br and .gz beside the text files of the build; the server sends them when the
 * browser accepts them (server/web/static.ts). */
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'family-shopping-precompress',
    apply: 'build',
    enforce: 'post',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle: {
      order: 'post',
      sequential: true,
      handler() {
        const walk = (dir: string): string[] =>
          readdirSync(dir).flatMap((n) => {
            const p = path.join(dir, n);
            return statSync(p).isDirectory() ? walk(p) : [p];
          });
        for (const file of walk(outDir)) {
          if (!/\.(js|css|html|svg|webmanifest|json)$/.test(file)) continue;
          const data = readFileSync(file);
          if (data.length < 1024) continue;
          writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
          writeFileSync(`${file}.br`, brotliCompressSync(data, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }));
        }
      },
    },
  };
}

const api = process.env.API_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  resolve: {
    // The SDK's TypeScript sources (no rebuild of client-sdk/dist while developing).
    conditions: ['@family-shopping/source', ...defaultClientConditions],
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 800,
    rollupOptions: {
      output: {
        // Each language but English is a chunk of its own (src/lib/i18n.ts), named so that the
        // service worker can leave it out of the precache (below).
        chunkFileNames: (chunk) =>
          chunk.facadeModuleId && /[\\/]src[\\/]locales[\\/]/.test(chunk.facadeModuleId)
            ? 'assets/locale-[name]-[hash].js'
            : 'assets/[name]-[hash].js',
      },
    },
  },
  server: {
    proxy: {
      '/api': { target: api, ws: true, changeOrigin: false },
      '/healthz': api,
      '/readyz': api,
    },
  },
  plugins: [
    icons(),
    VitePWA({
      registerType: 'autoUpdate',
      injectRegister: false,
      includeAssets: ['favicon.svg', 'apple-touch-icon.png'],
      manifest: {
        name: 'Family Shopping',
        short_name: 'Shopping',
        description: 'Shared shopping lists for the family, in the store even without signal',
        start_url: '/',
        scope: '/',
        display: 'standalone',
        orientation: 'portrait',
        theme_color: BRAND,
        background_color: '#ffffff',
        icons: [
          { src: '/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: '/icon-512.png', sizes: '512x512', type: 'image/png' },
          { src: '/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      workbox: {
        globPatterns: ['**/*.{js,css,html,svg,png,webmanifest}'],
        // An English user downloads no other language: a catalog is fetched when its language
        // is chosen, then kept (hashed names never change) so it opens offline too.
        globIgnores: ['**/assets/locale-*.js'],
        runtimeCaching: [
          {
            urlPattern: ({ url }) => url.pathname.startsWith('/assets/locale-'),
            handler: 'CacheFirst',
            options: { cacheName: 'locales', expiration: { maxEntries: 20 } },
          },
        ],
        navigateFallback: '/index.html',
        navigateFallbackDenylist: [/^\/api(\/|$)/, /^\/healthz$/, /^\/readyz$/],
        cleanupOutdatedCaches: true,
        clientsClaim: true,
        skipWaiting: true,
      },
    }),
    precompress(),
  ],
});
