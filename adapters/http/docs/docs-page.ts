import { swaggerUiVersion } from './docs-assets.js';

/** Where the page and the document live; operational routes stay at the root. */
export const DOCS_PATH = '/docs';
export const OPENAPI_PATH = '/openapi.json';

/** Our own start-up script: served as a file so the page's policy can forbid inline script. */
export const DOCS_SCRIPT_NAME = 'docs-page.js';

/**
 * Everything the page loads comes from this server. Inline styles set through the DOM are
 * not affected by style-src; data: images are the icons inside swagger-ui.css.
 */
export const docsContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const asset = (name: string, version: string) => `${DOCS_PATH}/${name}?v=${encodeURIComponent(version)}`;

/** The page: Swagger UI from this server's own copy of swagger-ui-dist, no CDN. */
export function docsPageHtml(apiVersion: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Plant Store API ${escapeHtml(apiVersion)}</title>
<link rel="icon" type="image/png" sizes="32x32" href="${asset('favicon-32x32.png', swaggerUiVersion)}">
<link rel="icon" type="image/png" sizes="16x16" href="${asset('favicon-16x16.png', swaggerUiVersion)}">
<link rel="stylesheet" href="${asset('swagger-ui.css', swaggerUiVersion)}">
<link rel="stylesheet" href="${asset('index.css', swaggerUiVersion)}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${asset('swagger-ui-bundle.js', swaggerUiVersion)}"></script>
<script src="${asset(DOCS_SCRIPT_NAME, apiVersion)}"></script>
</body>
</html>
`;
}

/**
 * Starts Swagger UI on the served document. Where the document offers sign-up (the
 * `signUpSandbox` operation), a "Get a sandbox token" button above it signs up and
 * authorizes the page with the new token, so "Try it out" works at once in a sandbox of the
 * visitor's own.
 */
export function docsPageScript(): string {
  return `'use strict';
window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(OPENAPI_PATH)},
  dom_id: '#swagger-ui',
  // The default sends the document to an outside validator; this page talks to this server only.
  validatorUrl: null,
  deepLinking: true,
  displayRequestDuration: true,
  // A token typed into Authorize stays in this tab only, never in storage.
  persistAuthorization: false,
  onComplete: offerSandbox,
});

function offerSandbox() {
  const paths = window.ui.specSelectors.specJson().toJS().paths || {};
  const signUp = Object.keys(paths).find((path) => paths[path].post && paths[path].post.operationId === 'signUpSandbox');
  if (signUp === undefined) return;
  const bar = document.createElement('div');
  bar.id = 'sandbox-offer';
  bar.style.cssText = 'max-width:1460px;margin:16px auto 0;padding:0 20px;font-family:sans-serif;display:flex;gap:12px;align-items:center';
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'btn authorize';
  button.textContent = 'Get a sandbox token';
  const status = document.createElement('span');
  status.id = 'sandbox-status';
  bar.append(button, status);
  document.body.insertBefore(bar, document.getElementById('swagger-ui'));
  button.addEventListener('click', async () => {
    button.disabled = true;
    status.textContent = 'Asking for a sandbox…';
    try {
      const answer = await fetch(signUp, { method: 'POST' });
      const body = await answer.json();
      if (answer.status !== 201) throw new Error(body.message || 'status ' + answer.status);
      window.ui.authActions.authorize({ bearerAuth: { name: 'bearerAuth', schema: { type: 'http', scheme: 'bearer' }, value: body.token } });
      status.textContent = 'Sandbox ' + body.sandbox + ': "Try it out" now uses its token (until ' + new Date(body.expiresAt).toLocaleString() + ' if unused).';
    } catch (error) {
      status.textContent = 'No sandbox: ' + error.message;
      button.disabled = false;
    }
  });
}
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
