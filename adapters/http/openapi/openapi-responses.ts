import type { ErrorCode } from '../../../core/index.js';
import { statusByErrorCode } from '../errors/error-statuses.js';
import { errorCodeLine, schemaRef, type JsonSchema } from './openapi-schemas.js';

/** Headers every response carries (request log and response-headers middleware). */
const everyResponse = ['X-Request-Id', 'Cache-Control', 'X-Content-Type-Options'] as const;
/** Headers of a rate-limited route once the token is known, whatever the outcome. */
export const rateLimitHeaders = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] as const;

const integerHeader = (description: string, required = false): JsonSchema => ({
  description,
  required,
  schema: { type: 'integer', minimum: 0 },
});

const challengeSchema: JsonSchema = { type: 'string', pattern: '^Bearer realm="plant-store"(, error="invalid_token"|, error="insufficient_scope"(, scope="plants:(read|write)")?)?$' };

/** `components.headers`: each response header this server sets, described once. */
export function componentHeaders(): Record<string, JsonSchema> {
  return {
    'X-Request-Id': {
      description: "The request's id, also in the server log: the caller's own X-Request-Id when it is 1–128 characters of `A-Z a-z 0-9 . _ : @ -`, else a new UUID.",
      required: true,
      schema: { type: 'string', pattern: '^[A-Za-z0-9._:@-]{1,128}$' },
    },
    'Cache-Control': {
      description: 'API answers are `no-store`; the docs page assets are cached for a long time.',
      required: true,
      schema: { type: 'string' },
    },
    'X-Content-Type-Options': { description: 'Never sniff the content type.', required: true, schema: { type: 'string', const: 'nosniff' } },
    Location: { description: 'Path of the created plant, with the base path: `/plants/{id}`.', required: true, schema: { type: 'string' } },
    Link: {
      description: 'RFC 8288 link to the next page, `<…/plants?limit=…&after=…>; rel="next"`, every other query parameter kept. Absent on the last page.',
      schema: { type: 'string' },
    },
    'WWW-Authenticate': {
      description:
        'RFC 6750 challenge: `Bearer realm="plant-store"`, with `, error="invalid_token"` when a token was sent but is malformed, unknown or expired (401), or `, error="insufficient_scope", scope="<needed>"` when it lacks the scope (403), or `, error="insufficient_scope"` alone when it names no sandbox (403 40302) or a named sandbox\'s token asks for an act left to operators.',
      required: true,
      schema: challengeSchema,
    },
    // The same challenge on a route whose 403 may also be a full sandbox (40303), which is no matter of the token.
    'WWW-Authenticate-Unless-Full': {
      description: 'As `WWW-Authenticate`, on every 403 but 40303 (the sandbox holds its maximum of plants), which has none.',
      required: false,
      schema: challengeSchema,
    },
    Allow: { description: 'The methods this path answers.', required: true, schema: { type: 'string' } },
    'Retry-After': { description: 'Seconds to wait before the next request.', required: true, schema: { type: 'integer', minimum: 1 } },
    'RateLimit-Limit': integerHeader('Requests a token may send in one burst: the bucket size. Present when rate limiting is on.'),
    'RateLimit-Remaining': integerHeader('Requests this token may still send right now. Present when rate limiting is on.'),
    'RateLimit-Reset': integerHeader('Seconds until the bucket is full again. Present when rate limiting is on.'),
    'Content-Security-Policy': { description: 'The docs page loads scripts, styles and data from this server only.', required: true, schema: { type: 'string' } },
    'Referrer-Policy': { description: 'The docs page sends no referrer.', required: true, schema: { type: 'string' } },
  };
}

function headerRefs(names: readonly string[]): Record<string, JsonSchema> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/** A response with the headers every answer has, plus `extraHeaders`. */
export function response(description: string, extraHeaders: readonly string[], content?: Record<string, JsonSchema>): JsonSchema {
  return { description, headers: headerRefs([...everyResponse, ...extraHeaders]), ...(content && { content }) };
}

export const json = (schema: JsonSchema): Record<string, JsonSchema> => ({ 'application/json': { schema } });

/** Extra headers of an error response, by status: what the middleware sets before throwing. */
export type HeadersForStatus = (status: number) => readonly string[];

/**
 * One response per status among `codes`, each listing exactly the codes it can carry, so a
 * client (and the conformance test) knows that a 404 here is 40401 and never 40400.
 */
export function errorResponses(codes: readonly ErrorCode[], headersFor: HeadersForStatus): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = statusByErrorCode[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const sorted = [...byStatus].sort(([a], [b]) => a - b);
  return Object.fromEntries(sorted.map(([status, list]) => [String(status), errorResponse(list, headersFor(status))]));
}

export function errorResponse(codes: readonly ErrorCode[], extraHeaders: readonly string[]): JsonSchema {
  const description = ['Error, `error` one of:', '', ...codes.map(errorCodeLine)].join('\n');
  const schema = { allOf: [schemaRef('Error'), { type: 'object', properties: { error: { enum: [...codes] } } }] };
  return response(description, extraHeaders, json(schema));
}
