import { ErrorCode, MAX_PAGE_LIMIT } from '../../../core/index.js';
import { guardedOperation } from '../openapi/operations.js';
import { json, rateLimitHeaders, response } from '../openapi/openapi-responses.js';
import { schemaRef, type JsonSchema } from '../openapi/openapi-schemas.js';

export interface PlantPathsOptions {
  readonly basePath: string;
  readonly bodyLimitBytes: number;
}

const parameter = (name: string): JsonSchema => ({ $ref: `#/components/parameters/${name}` });

/** `/plants` and `/plants/{id}`, under the configured base path, as plant-routes.ts serves them. */
export function plantPaths({ basePath, bodyLimitBytes }: PlantPathsOptions): Record<string, JsonSchema> {
  return {
    [`${basePath}/plants`]: {
      get: {
        ...guardedOperation(
          'listPlants',
          'List plants',
          `One page of plants, ordered by id ascending. Up to ${MAX_PAGE_LIMIT} per page; a \`Link\` header carries the next page.`,
          { '200': response('The page of plants (possibly empty).', ['Link', ...rateLimitHeaders], json({ type: 'array', maxItems: MAX_PAGE_LIMIT, items: schemaRef('Plant') })) },
          [ErrorCode.InvalidParameter],
        ),
        parameters: [parameter('Limit'), parameter('After'), parameter('Tag')],
      },
      post: {
        ...guardedOperation(
          'createPlant',
          'Create a plant',
          `Stores a new plant with the id the client chose. Checked in this order: media type (415), size (413, more than ${bodyLimitBytes} bytes), JSON (400 40002), validation (400 40001), conflict (409), then a self-service sandbox's quota (403 40303).`,
          { '200': response('The created plant.', ['Location', ...rateLimitHeaders], json(schemaRef('Plant'))) },
          [ErrorCode.UnsupportedMediaType, ErrorCode.BodyTooLarge, ErrorCode.MalformedBody, ErrorCode.InvalidPlant, ErrorCode.PlantExists, ErrorCode.SandboxFull],
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
      get: guardedOperation(
        'getPlant',
        'Get a plant',
        'The plant with this id.',
        { '200': response('The plant.', rateLimitHeaders, json(schemaRef('Plant'))) },
        [ErrorCode.InvalidParameter, ErrorCode.PlantNotFound],
      ),
      delete: guardedOperation(
        'deletePlant',
        'Delete a plant',
        'Removes the plant with this id.',
        { '204': response('Deleted; no body.', rateLimitHeaders) },
        [ErrorCode.InvalidParameter, ErrorCode.PlantNotFound],
      ),
    },
  };
}
