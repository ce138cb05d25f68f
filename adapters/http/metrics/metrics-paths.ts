import { ErrorCode } from '../../../core/index.js';
import { openOperation } from '../openapi/operations.js';
import { errorResponses, response } from '../openapi/openapi-responses.js';
import type { JsonSchema } from '../openapi/openapi-schemas.js';
import { METRICS_PATH } from './metrics-routes.js';

/** `/metrics`, at the root, as metrics-routes.ts serves it. */
export function metricsPaths(): Record<string, JsonSchema> {
  return {
    [METRICS_PATH]: openOperation('getMetrics', 'Prometheus metrics', {
      '200': response('Every metric in the Prometheus text format 0.0.4 (see docs/metrics.md).', [], { 'text/plain': { schema: { type: 'string' } } }),
      ...errorResponses([ErrorCode.Internal], () => []),
    }),
  };
}
