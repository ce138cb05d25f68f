import { ErrorCode } from '../../../core/index.js';
import { openOperation } from '../openapi/operations.js';
import { errorResponses, json, response } from '../openapi/openapi-responses.js';
import type { JsonSchema } from '../openapi/openapi-schemas.js';

const status = (value: string): JsonSchema => ({
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string', const: value } },
  additionalProperties: false,
});

/** `/healthz` and `/readyz`, at the root whatever the base path, as health-routes.ts serves them. */
export function healthPaths(): Record<string, JsonSchema> {
  return {
    '/healthz': openOperation('getHealth', 'Liveness: 200 while the process runs', {
      '200': response('The process is alive.', [], json(status('ok'))),
    }),
    '/readyz': openOperation('getReadiness', 'Readiness: 200 when storage answers', {
      '200': response('Storage answers.', [], json(status('ready'))),
      ...errorResponses([ErrorCode.Internal, ErrorCode.StorageUnavailable], () => []),
    }),
  };
}
