import { ErrorCode } from '../../core/index.js';
import { packageAssetNames } from './docs-assets.js';
import { DOCS_PATH, DOCS_SCRIPT_NAME, OPENAPI_PATH } from './docs-page.js';
import { errorResponses, json, response } from './openapi-responses.js';
import type { JsonSchema } from './openapi-schemas.js';

const status = (value: string): JsonSchema => ({
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string', const: value } },
  additionalProperties: false,
});

/** No token, no rate limit: for operators, load balancers and people reading the docs. */
function operation(id: string, summary: string, responses: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema {
  return { get: { operationId: id, tags: ['operations'], summary, security: [], ...extra, responses } };
}

const assetNames = [...packageAssetNames, DOCS_SCRIPT_NAME];

/** The operational routes, at the root whatever the base path, as their routers serve them. */
export function operationalPaths(): Record<string, JsonSchema> {
  return {
    '/healthz': operation('getHealth', 'Liveness: 200 while the process runs', {
      '200': response('The process is alive.', [], json(status('ok'))),
    }),
    '/readyz': operation('getReadiness', 'Readiness: 200 when storage answers', {
      '200': response('Storage answers.', [], json(status('ready'))),
      ...errorResponses([ErrorCode.Internal, ErrorCode.StorageUnavailable], () => []),
    }),
    [OPENAPI_PATH]: operation('getOpenApiDocument', 'This OpenAPI document', {
      '200': response('The OpenAPI 3.1 description of this server.', [], json({ type: 'object' })),
    }),
    [DOCS_PATH]: operation('getDocsPage', 'Interactive API reference (Swagger UI)', {
      '200': response('The page; every asset it loads comes from this server.', ['Content-Security-Policy', 'Referrer-Policy'], {
        'text/html': { schema: { type: 'string' } },
      }),
    }),
    [`${DOCS_PATH}/{asset}`]: operation(
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
