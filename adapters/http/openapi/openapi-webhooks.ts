import { json } from './openapi-responses.js';
import { schemaRef, type JsonSchema } from './openapi-schemas.js';

const header = (name: string, description: string, schema: JsonSchema = { type: 'string' }): JsonSchema => ({ name, in: 'header', required: true, description, schema });

/** The headers of every webhook request (Standard Webhooks 1.0, plus the event type and sender). */
const webhookHeaders = (type: string): JsonSchema[] => [
  header('webhook-id', 'Unique per event and endpoint; the same on every retry, so a receiver can drop repeats.', { type: 'string', pattern: '^msg_[0-9a-f]{32}$' }),
  header('webhook-timestamp', 'When this attempt was signed, Unix seconds. Refuse ones far from your clock (replays).', { type: 'string', pattern: '^[0-9]+$' }),
  header('webhook-signature', '`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` with the secret (`whsec_` prefix removed, base64-decoded).', { type: 'string', pattern: '^v1,' }),
  header('webhook-event-type', 'The event.', { type: 'string', const: type }),
  header('plant-store-sandbox', 'The sandbox of the plant (`default` without sandboxes).', { type: 'string', pattern: '^[a-z0-9-]{1,64}$' }),
  header('user-agent', 'The sending release.', { type: 'string', pattern: '^plant-store/' }),
];

const receiverAnswers: Record<string, JsonSchema> = {
  '2XX': { description: 'Delivered: no more attempts.' },
  '410': { description: 'Gone: the server stops delivering to this endpoint (on every server sharing the storage, across restarts) until failed deliveries are retried, and logs it at error.' },
  default: { description: 'Anything else, a timeout or a connection error: retried on the schedule, then marked failed.' },
};

const webhook = (operationId: string, type: string, summary: string, body: JsonSchema): JsonSchema => ({
  post: {
    operationId,
    summary,
    description: 'Sent to each configured endpoint subscribed to the event, at least once (see `webhook-id`), never following redirects. Per plant and endpoint, events arrive in the order the changes were made.',
    // A receiver is called by this server and checks the signature: no bearer token (the document's default) applies.
    security: [],
    parameters: webhookHeaders(type),
    requestBody: { required: true, content: json(body) },
    responses: receiverAnswers,
  },
});

/**
 * The OpenAPI 3.1 `webhooks`: what a configured endpoint receives. The creation webhook
 * keeps the public contract's name (`/plant/webhook`); the deletion one is named after it.
 */
export function webhooksSection(): Record<string, JsonSchema> {
  return {
    '/plant/webhook': webhook('plantCreated', 'plant.created', 'plant.created: a plant was added', {
      ...schemaRef('Plant'),
      description: 'The NewPlant body: the plant as stored (`tag` absent when it has none).',
    }),
    '/plant/deleted/webhook': webhook('plantDeleted', 'plant.deleted', 'plant.deleted: a plant was deleted (when subscribed)', {
      type: 'object',
      required: ['id'],
      properties: { id: schemaRef('PlantId') },
      additionalProperties: false,
    }),
  };
}
