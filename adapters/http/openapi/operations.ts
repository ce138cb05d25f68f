import { ErrorCode, scopeNeededFor, type PlantOperation } from '../../../core/index.js';
import { errorResponses, rateLimitHeaders, type HeadersForStatus } from './openapi-responses.js';
import type { JsonSchema } from './openapi-schemas.js';

// How each kind of operation is described: behind the route guard (the API), or open
// (operators, load balancers, the docs page).

// Codes every plant route can answer: its guard (token, scope, rate limit), an unexpected
// failure, storage that does not answer, and token keys that cannot be fetched.
const guarded = [
  ErrorCode.MissingToken,
  ErrorCode.InvalidToken,
  ErrorCode.InsufficientScope,
  ErrorCode.NoSandbox,
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

/** An operation behind the route guard: its scope, the bearer requirement and every answer the guard can give. */
export function guardedOperation(id: PlantOperation, summary: string, description: string, responses: Record<string, JsonSchema>, codes: ErrorCode[]): JsonSchema {
  const scope = scopeNeededFor(id);
  return {
    operationId: id,
    tags: ['plants'],
    summary,
    description: `${description} Needs the \`${scope}\` scope.`,
    // OpenAPI 3.1 lets a bearer requirement list the roles (here: scopes) it needs.
    security: [{ bearerAuth: [scope] }],
    responses: withQuotaChallenge({ ...responses, ...errorResponses([...codes, ...guarded], guardHeaders) }, codes),
  };
}

/** Where a 403 may be 40303 (a full sandbox, no challenge), its challenge header is documented as optional. */
function withQuotaChallenge(responses: Record<string, JsonSchema>, codes: readonly ErrorCode[]): Record<string, JsonSchema> {
  if (!codes.includes(ErrorCode.SandboxFull)) return responses;
  const forbidden = responses['403'] as { headers: Record<string, JsonSchema> };
  return { ...responses, '403': { ...forbidden, headers: { ...forbidden.headers, 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate-Unless-Full' } } } };
}

/** No token, no rate limit: for operators, load balancers and people reading the docs. */
export function openOperation(id: string, summary: string, responses: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema {
  return { get: { operationId: id, tags: ['operations'], summary, security: [], ...extra, responses } };
}
