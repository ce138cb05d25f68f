import Router from '@koa/router';
import { packageAsset } from './docs-assets.js';
import { DOCS_PATH, DOCS_SCRIPT_NAME, docsContentSecurityPolicy, docsPageHtml, docsPageScript, OPENAPI_PATH } from './docs-page.js';
import type { OpenApiDocument } from '../openapi/openapi-document.js';

// Asset URLs carry a version (`?v=`), so a browser may keep them; a new release changes the URL.
const longCache = 'public, max-age=31536000, immutable';

/** `/openapi.json` and the Swagger UI page with its files; no token, at the root. */
export function docsRoutes(document: () => OpenApiDocument, version: string): Router {
  const router = new Router();
  // Built at the first request: the document holds every module's paths, this one's too.
  let documentJson: string | undefined;
  const page = docsPageHtml(version);
  const script = Buffer.from(docsPageScript());

  router.get(OPENAPI_PATH, (ctx) => {
    ctx.type = 'application/json';
    ctx.body = documentJson ??= JSON.stringify(document());
  });

  router.get(DOCS_PATH, (ctx) => {
    ctx.set('Content-Security-Policy', docsContentSecurityPolicy);
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });

  router.get(`${DOCS_PATH}/:asset`, async (ctx) => {
    const name = ctx.params['asset'] ?? '';
    const asset = name === DOCS_SCRIPT_NAME ? { type: 'text/javascript; charset=utf-8', body: script } : await packageAsset(name);
    // No body: the error middleware answers it as any unknown path (404 40400).
    if (asset === undefined) return;
    ctx.set('Cache-Control', longCache);
    ctx.type = asset.type;
    ctx.body = asset.body;
  });

  return router;
}
