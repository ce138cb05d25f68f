import { ErrorCode } from '../../../core/index.js';
import { openOperation } from '../openapi/operations.js';
import { errorResponses, json, response } from '../openapi/openapi-responses.js';
import type { JsonSchema } from '../openapi/openapi-schemas.js';
import { packageAssetNames } from './docs-assets.js';
import { DOCS_PATH, DOCS_SCRIPT_NAME, OPENAPI_PATH } from './docs-page.js';

const assetNames = [...packageAssetNames, DOCS_SCRIPT_NAME];

/** The OpenAPI document and the docs page, at the root, as docs-routes.ts serves them. */
export function docsPaths(): Record<string, JsonSchema> {
  return {
    [OPENAPI_PATH]: openOperation('getOpenApiDocument', 'This OpenAPI document', {
      '200': response('The OpenAPI 3.1 description of this server.', [], json({ type: 'object' })),
    }),
    [DOCS_PATH]: openOperation('getDocsPage', 'Interactive API reference (Swagger UI)', {
      '200': response('The page; every asset it loads comes from this server.', ['Content-Security-Policy', 'Referrer-Policy'], {
        'text/html': { schema: { type: 'string' } },
      }),
    }),
    [`${DOCS_PATH}/{asset}`]: openOperation(
      'getDocsAsset',
      'A file of the docs page',
      {
        '200': response(
          'The file, cached for a year: its URL changes with the version.',
          [],
          // Binary content has no schema in OpenAPI 3.1; the media type says it all.
          { 'text/css': { schema: { type: 'string' } }, 'text/javascript': { schema: { type: 'string' } }, 'image/png': {} },
        ),
        ...errorResponses([ErrorCode.NoSuchRoute], () => []),
      },
      { parameters: [{ name: 'asset', in: 'path', required: true, schema: { type: 'string', enum: assetNames } }] },
    ),
  };
}
