import { componentHeaders } from './openapi-responses.js';
import { componentParameters, componentSchemas, type JsonSchema } from './openapi-schemas.js';
import { nonOperationResponses } from './openapi-route-responses.js';
import { webhooksSection } from './openapi-webhooks.js';

export interface OpenApiOptions {
  /** The package version: clients see which release they talk to. */
  readonly version: string;
  /** Prefix of the plant paths, e.g. `/v1`; empty by default. */
  readonly basePath: string;
  readonly bodyLimitBytes: number;
  /** The configured limits, told in the description; 429 is documented either way. */
  readonly rateLimit?: { readonly perSecond: number; readonly burst: number } | undefined;
  readonly authFailuresPerMinute?: number | undefined;
  /** Identity-provider JWTs are accepted besides (or instead of) static tokens. */
  readonly acceptsJwt?: boolean | undefined;
}

export interface OpenApiDocument extends JsonSchema {
  readonly openapi: string;
  readonly info: { readonly title: string; readonly version: string } & JsonSchema;
  readonly paths: Record<string, JsonSchema>;
}

/**
 * The OpenAPI 3.1 description of this server, built from the definitions the server runs
 * on (error codes and their statuses, field and page limits, base path, body limit, and
 * the paths of its modules), so the two change together. Tests check the rest against
 * live responses.
 */
export function buildOpenApiDocument(options: OpenApiOptions, paths: Record<string, JsonSchema>): OpenApiDocument {
  return {
    openapi: '3.1.1',
    info: {
      title: 'Plant Store',
      version: options.version,
      summary: 'A small plant collection service behind bearer-token authentication.',
      description: description(options),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // The paths carry the base path themselves, because the operational routes stay at the
    // root. A relative URL resolves against where the document was fetched, proxies included.
    servers: [{ url: '/', description: 'this server' }],
    tags: [
      { name: 'plants', description: 'The plant collection; needs a bearer token.' },
      { name: 'operations', description: 'Health, readiness and this documentation; no token needed.' },
    ],
    security: [{ bearerAuth: [] }],
    paths,
    webhooks: webhooksSection(),
    components: {
      schemas: componentSchemas(),
      parameters: componentParameters(),
      headers: componentHeaders(),
      responses: nonOperationResponses(),
      securitySchemes: {
        bearerAuth: bearerScheme(options.acceptsJwt === true),
      },
    },
  };
}

const scopesText =
  'Scopes: `plants:read` lists and gets plants, `plants:write` creates and deletes them; a token without the needed scope gets 403 (`40301`). ' +
  'Sandboxes: every plant belongs to one sandbox and a token sees only its own (ids are unique per sandbox): a static token names it in the configuration (`sandbox=<name>`), a JWT in a configured claim (none: 403 `40302`); without either, the `default` sandbox.';

function bearerScheme(acceptsJwt: boolean): JsonSchema {
  const staticTokens = 'static tokens from the server configuration (a static token without listed scopes has both)';
  return acceptsJwt
    ? {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: `RFC 6750 bearer token: an RFC 9068 JWT access token from the configured identity provider (scopes in its \`scope\` or \`scp\` claim), or one of the ${staticTokens}. ${scopesText} When the provider's keys cannot be fetched, a token signed by a key not yet known answers 503 (\`50302\`).`,
      }
    : {
        type: 'http',
        scheme: 'bearer',
        description: `RFC 6750 bearer token: one of the ${staticTokens}, or the one generated at start-up when none is configured. ${scopesText}`,
      };
}

function description({ basePath, rateLimit, authFailuresPerMinute }: OpenApiOptions): string {
  const limits = [
    rateLimit
      ? `This server allows ${rateLimit.perSecond} requests per second per principal (a static token, or a JWT subject), ${rateLimit.burst} at once; beyond that, 429 with \`Retry-After\`.`
      : 'Per-principal rate limiting is off on this server.',
    authFailuresPerMinute === undefined
      ? ''
      : ` After ${authFailuresPerMinute} failed authentications per minute, an address gets 429 for a while, whatever token it sends.`,
  ].join('');
  return [
    `Every \`${basePath}/plants…\` route needs \`Authorization: Bearer <token>\`. Errors are \`{"error": <code>, "message": <text>}\`; the \`ErrorCode\` schema lists every code.`,
    '',
    'On any path: an unknown path answers 404 (`40400`); another method on a known path 405 (`40501`) with `Allow`; `OPTIONS` 200 with `Allow`, no token needed; `HEAD` works where `GET` does. Before any route is chosen, a request can be refused on any path, the connection then closed: 400 (`40002`) when it is not valid HTTP/1.1 or has no `Host`, 408 (`40801`) when its headers or body arrive too slowly, 417 (`41701`) for an `Expect` other than `100-continue`, 431 (`43101`) when its headers are too large. `Expect: 100-continue` gets `100 Continue` only with a valid token. These answers are in `components/responses`.',
    '',
    `Checks run in this order: route, failed-authentication limit, token, scope, rate limit, media type, size, JSON, validation, conflict. ${scopesText} ${limits}`,
  ].join('\n');
}
