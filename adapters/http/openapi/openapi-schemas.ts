import {
  DEFAULT_PAGE_LIMIT,
  ErrorCode,
  MAX_NAME_LENGTH,
  MAX_PAGE_LIMIT,
  MAX_PLANT_ID,
  MAX_TAG_FILTERS,
  MAX_TAG_LENGTH,
} from '../../../core/index.js';
import { descriptionByErrorCode } from '../errors/error-descriptions.js';
import { statusByErrorCode } from '../errors/error-statuses.js';

/** A JSON Schema 2020-12 object, the dialect of OpenAPI 3.1. */
export type JsonSchema = Record<string, unknown>;

export const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

// JSON Schema cannot trim, but "not only whitespace" is the same as "has one non-space
// character": JavaScript's \s and String.prototype.trim() share one definition of space.
const notBlank = '\\S';

const errorCodes = Object.values(ErrorCode) as ErrorCode[];

/** The schemas of `components.schemas`, every limit taken from the core. */
export function componentSchemas(): Record<string, JsonSchema> {
  return {
    PlantId: {
      type: 'integer',
      format: 'int64',
      minimum: 1,
      maximum: MAX_PLANT_ID,
      description: `Chosen by the client, unique. At most 2^53−1 (${MAX_PLANT_ID}), exact in every JSON client.`,
    },
    PlantName: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_NAME_LENGTH,
      pattern: notBlank,
      description: `1 to ${MAX_NAME_LENGTH} characters (Unicode code points), not only whitespace, no unpaired surrogate; stored as sent.`,
    },
    PlantTag: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_TAG_LENGTH,
      pattern: notBlank,
      description: `1 to ${MAX_TAG_LENGTH} characters (Unicode code points), not only whitespace, no unpaired surrogate.`,
    },
    Plant: {
      type: 'object',
      description: 'A plant as the server returns it. `tag` is absent (never null) when the plant has none.',
      required: ['id', 'name'],
      properties: { id: schemaRef('PlantId'), name: schemaRef('PlantName'), tag: schemaRef('PlantTag') },
      additionalProperties: false,
      examples: [{ id: 7, name: 'Monstera', tag: 'tropical' }],
    },
    NewPlant: {
      type: 'object',
      description: 'A plant to create. `tag` may be omitted or null for no tag; any other property is ignored (never stored, never echoed).',
      required: ['id', 'name'],
      properties: {
        id: schemaRef('PlantId'),
        name: schemaRef('PlantName'),
        tag: { oneOf: [schemaRef('PlantTag'), { type: 'null' }] },
      },
      examples: [{ id: 7, name: 'Monstera', tag: 'tropical' }],
    },
    ErrorCode: {
      type: 'integer',
      enum: errorCodes,
      description: ['Every error code of the API, with its HTTP status:', '', ...errorCodes.map(errorCodeLine)].join('\n'),
    },
    Error: {
      type: 'object',
      description: 'Every error response. `message` is for people: it names the offending field or parameter and never carries internals.',
      required: ['error', 'message'],
      properties: { error: schemaRef('ErrorCode'), message: { type: 'string', minLength: 1 } },
      additionalProperties: false,
    },
  };
}

/** One line of a Markdown list: `- 40401 (404): no plant with that id`. */
export function errorCodeLine(code: ErrorCode): string {
  return `- \`${code}\` (${statusByErrorCode[code]}): ${descriptionByErrorCode[code]}`;
}

/** The parameters of `components.parameters`. */
export function componentParameters(): Record<string, JsonSchema> {
  return {
    PlantIdInPath: {
      name: 'id',
      in: 'path',
      required: true,
      description: 'The plant id, in plain decimal digits; anything else is 400 (40003).',
      schema: schemaRef('PlantId'),
    },
    Limit: {
      name: 'limit',
      in: 'query',
      description: `Largest number of plants in the page, in plain decimal digits. When more follow, \`Link\` has the next page.`,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT },
    },
    After: {
      name: 'after',
      in: 'query',
      description: 'Keyset cursor: only plants with a larger id. `0` means from the start.',
      schema: { type: 'integer', format: 'int64', minimum: 0, maximum: MAX_PLANT_ID },
    },
    Tag: {
      name: 'tag',
      in: 'query',
      description: `Only plants with this exact tag; repeat for either of several (\`?tag=a&tag=b\`), at most ${MAX_TAG_FILTERS} times.`,
      style: 'form',
      explode: true,
      schema: { type: 'array', items: schemaRef('PlantTag'), maxItems: MAX_TAG_FILTERS },
    },
  };
}
