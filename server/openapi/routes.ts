// Serves the OpenAPI document and a browsable API reference (Swagger UI from the
// `swagger-ui-dist` package, served by this process: no CDN, nothing fetched from elsewhere).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { z } from 'zod';
import type { Deps } from '../context.js';
import type { ApiRouter, RouteSpec } from '../http/route.js';
import { notFound } from '../errors.js';
import { buildOpenApiDocument, type OpenApiDocument } from './document.js';
import { ok } from './responses.js';

const require = createRequire(import.meta.url);
const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: 'openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Family Shopping API reference</title>
  <link rel="stylesheet" href="docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/swagger-ui-bundle.js"></script>
  <script src="docs/init.js"></script>
</body>
</html>
`;

/**
 * Files of swagger-ui-dist the page uses, and their content types. A Map, so that a name from the
 * path such as `__proto__` or `constructor` is simply not in it (an object literal would answer
 * with what it inherits).
 */
const ASSETS = new Map<string, string>([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
  ['favicon-16x16.png', 'image/png'],
]);

/** A route of the API reference: public, tagged `Docs`, never touching the database. */
function docsRoute<P extends z.core.$ZodType>({
  method,
  path,
  summary,
  ...rest
}: Omit<RouteSpec<P>, 'tag' | 'access' | 'usesDatabase'>): RouteSpec<P> {
  return { method, path, summary, tag: 'Docs', access: 'public', usesDatabase: false, ...rest };
}

export function registerOpenApiRoutes(api: ApiRouter, _deps: Deps): void {
  // Built on first request, when every feature has registered its routes.
  let doc: OpenApiDocument | undefined;
  const cache = new Map<string, Buffer>();

  api.add(
    docsRoute({
      method: 'get',
      path: '/openapi.json',
      summary: 'This OpenAPI 3.1 document',
      responses: ok(z.record(z.string(), z.unknown()), 'The OpenAPI document'),
    }),
    async (ctx) => {
      doc ??= buildOpenApiDocument(api.routes);
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = doc;
    },
  );

  api.add(
    docsRoute({
      method: 'get',
      path: '/docs',
      summary: 'Browsable API reference (HTML)',
      responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
    }),
    async (ctx) => {
      // Asset URLs are relative to /api/docs (so the page works behind a path prefix).
      if (ctx.path.endsWith('/')) {
        ctx.redirect(ctx.path.replace(/\/+$/, ''));
        return;
      }
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = PAGE;
    },
  );

  api.add(
    docsRoute({
      method: 'get',
      path: '/docs/:asset',
      summary: 'Static asset of the API reference page',
      // Any name reaches the handler (404 when it is none of these); documented as the enum.
      params: z.object({
        asset: z
          .string()
          .max(100)
          .meta({ enum: ['init.js', ...ASSETS.keys()] }),
      }),
      responses: {
        200: {
          description: 'The asset',
          contentType: [...new Set(['text/javascript', ...ASSETS.values()])].map((t) => t.split(';')[0]!),
        },
      },
    }),
    async (ctx, { params }) => {
      if (params.asset === 'init.js') {
        ctx.type = 'text/javascript; charset=utf-8';
        ctx.body = INIT_JS;
        return;
      }
      const type = ASSETS.get(params.asset);
      if (!type) throw notFound('No such asset');
      let content = cache.get(params.asset);
      if (!content) {
        content = await fs.promises.readFile(path.join(swaggerDir, params.asset));
        cache.set(params.asset, content);
      }
      ctx.type = type;
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = content;
    },
  );
}
