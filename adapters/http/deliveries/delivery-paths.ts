import { ErrorCode } from '../../../core/index.js';
import { guardedOperation } from '../openapi/operations.js';
import { json, rateLimitHeaders, response } from '../openapi/openapi-responses.js';
import { schemaRef, type JsonSchema } from '../openapi/openapi-schemas.js';
import { DELIVERIES_PATH } from './delivery-routes.js';

const failedDelivery: JsonSchema = {
  type: 'object',
  required: ['id', 'plantId', 'endpoint', 'type', 'createdAt', 'attempts'],
  properties: {
    id: { type: 'string', description: 'The webhook-id.' },
    plantId: schemaRef('PlantId'),
    endpoint: { type: 'string' },
    type: { type: 'string', enum: ['plant.created', 'plant.deleted'] },
    createdAt: { type: 'integer', description: 'When the change was made, ms since the epoch.' },
    attempts: { type: 'integer' },
    lastStatus: { type: 'integer' },
    lastError: { type: 'string' },
  },
};

/** The delivery routes, served when webhooks are configured. */
export function deliveryPaths(basePath: string): Record<string, JsonSchema> {
  return {
    [`${basePath}${DELIVERIES_PATH}`]: {
      get: guardedOperation(
        'readDeliveries',
        'Webhook delivery state',
        "Pending deliveries (count, and the age of the oldest) and failed ones with their last status or error, of the caller's sandbox.",
        {
          '200': response(
            'The delivery state.',
            rateLimitHeaders,
            json({
              type: 'object',
              required: ['pending', 'failed'],
              properties: {
                pending: { type: 'integer', minimum: 0 },
                oldestPendingAt: { type: 'integer' },
                oldestPendingAgeMs: { type: 'integer', minimum: 0 },
                sandboxes: { type: 'integer', minimum: 0, description: "Self-service sandboxes now; shown to the default sandbox's tokens (operators) while sign-up is on." },
                failed: { type: 'array', items: failedDelivery },
              },
            }),
          ),
        },
        [ErrorCode.StorageUnavailable],
      ),
    },
    [`${basePath}${DELIVERIES_PATH}/retry`]: {
      post: guardedOperation(
        'retryDeliveries',
        'Retry failed webhook deliveries',
        'Makes every failed delivery pending again; its attempts start over.',
        { '200': response('How many were failed and are pending again.', rateLimitHeaders, json({ type: 'object', required: ['retried'], properties: { retried: { type: 'integer', minimum: 0 } } })) },
        [ErrorCode.StorageUnavailable],
      ),
    },
  };
}
