import { ErrorCode, MAX_PAGE_LIMIT, scopeNeededFor, type PlantOperation } from '../../core/index.js';
import { errorResponses, json, rateLimitHeaders, response, type HeadersForStatus } from './openapi-responses.js';
import { schemaRef, type JsonSchema } from './openapi-schemas.js';

export interface PlantPathsOptions {
  readonly basePath: string;
  readonly bodyLimitBytes: number;
}

// Codes every plant route can answer: its guard (token, scope, rate limit), an unexpected
// failure, storage that does not answer, and token keys that cannot be fetched.
const guarded = [
  ErrorCode.MissingToken,
  ErrorCode.InvalidToken,
  ErrorCode.InsufficientScope,
  ErrorCode.RateLimited,
  ErrorCode.Internal,
  ErrorCode.StorageUnavailable,
  ErrorCode.VerificationUnavailable,
];

/**
 * Rate limit headers are set after the token and scope checks, and errors keep headers set
 * before them, so every answer but a 401 or 403 may carry them.
 */
const guardHeaders: HeadersForStatus = (status) => {
  if (status === 401 || status === 403) return ['WWW-Authenticate'];
  if (status === 429) return ['Retry-After', ...rateLimitHeaders];
  return rateLimitHeaders;
};

const parameter = (name: string): JsonSchema => ({ $ref: `#/components/parameters/${name}` });

export function operation(id: PlantOperation, summary: string, description: string, responses: Record<string, JsonSchema>, codes: ErrorCode[]): JsonSchema {
  const scope = scopeNeededFor(id);
  return {
    operationId: id,
    tags: ['plants'],
    summary,
    description: `${description} Needs the \`${scope}\` scope.`,
    // OpenAPI 3.1 lets a bearer requirement list the roles (here: scopes) it needs.
    security: [{ bearerAuth: [scope] }],
    responses: { ...responses, ...errorResponses([...codes, ...guarded], guardHeaders) },
  };
}

/** `/plants` and `/plants/{id}`, under the configured base path, as plant-routes.ts serves them. */
export function plantPaths({ basePath, bodyLimitBytes }: PlantPathsOptions): Record<string, JsonSchema> {
  return {
    [`${basePath}/plants`]: {
      get: {
        ...operation(
          'listPlants',
          'List plants',
          `One page of plants, ordered by id ascending. Up to ${MAX_PAGE_LIMIT} per page; a \`Link\` header carries the next page.`,
          { '200': response('The page of plants (possibly empty).', ['Link', ...rateLimitHeaders], json({ type: 'array', maxItems: MAX_PAGE_LIMIT, items: schemaRef('Plant') })) },
          [ErrorCode.InvalidParameter],
        ),
        parameters: [parameter('Limit'), parameter('After'), parameter('Tag')],
      },
      post: {
        ...operation(
          'createPlant',
          'Create a plant',
          `Stores a new plant with the id the client chose. Checked in this order: media type (415), size (413, more than ${bodyLimitBytes} bytes), JSON (400 40002), validation (400 40001), conflict (409).`,
          { '200': response('The created plant.', ['Location', ...rateLimitHeaders], json(schemaRef('Plant'))) },
          [ErrorCode.UnsupportedMediaType, ErrorCode.BodyTooLarge, ErrorCode.MalformedBody, ErrorCode.InvalidPlant, ErrorCode.PlantExists],
        ),
        requestBody: {
          required: true,
          description: `The plant, as JSON (UTF-8), at most ${bodyLimitBytes} bytes.`,
          content: json(schemaRef('NewPlant')),
        },
      },
    },
    [`${basePath}/plants/{id}`]: {
      parameters: [parameter('PlantIdInPath')],
      get: operation(
        'getPlant',
        'Get a plant',
        'The plant with this id.',
        { '200': response('The plant.', rateLimitHeaders, json(schemaRef('Plant'))) },
        [ErrorCode.InvalidParameter, ErrorCode.PlantNotFound],
      ),
      delete: operation(
        'deletePlant',
        'Delete a plant',
        'Removes the plant with this id.',
        { '204': response('Deleted; no body.', rateLimitHeaders) },
        [ErrorCode.InvalidParameter, ErrorCode.PlantNotFound],
      ),
    },
  };
}
