import { ErrorCode } from '../../../core/index.js';
import { guardedOperation, openOperation } from '../openapi/operations.js';
import { errorResponses, json, rateLimitHeaders, response } from '../openapi/openapi-responses.js';
import type { JsonSchema } from '../openapi/openapi-schemas.js';
import { OWN_SANDBOX_PATH, SIGN_UP_PATH } from './sandbox-routes.js';

const signedUp: JsonSchema = {
  type: 'object',
  required: ['sandbox', 'token', 'expiresAt'],
  additionalProperties: false,
  properties: {
    sandbox: { type: 'string', pattern: '^[a-z0-9-]{1,64}$', description: 'The new sandbox: its plants are apart from every other sandbox\'s.' },
    token: { type: 'string', pattern: '^psb_[A-Za-z0-9_-]{43}$', description: 'Its bearer token (plants:read and plants:write). Shown once: the server keeps only a digest.' },
    expiresAt: { type: 'string', format: 'date-time', description: 'When it expires unless used: each request moves it to that time plus the lifetime.' },
  },
};

/** `POST /sandboxes` and `DELETE /sandbox`, under the base path, as sandbox-routes.ts serves them. */
export function sandboxPaths(basePath: string): Record<string, JsonSchema> {
  const signUp = openOperation('signUpSandbox', 'Get a sandbox of your own and its token (no token needed)', {
    '201': response('The sandbox and its token.', [], json(signedUp)),
    ...errorResponses([ErrorCode.RateLimited, ErrorCode.Internal, ErrorCode.StorageUnavailable], (status) => (status === 429 ? ['Retry-After'] : [])),
  });
  return {
    [`${basePath}${SIGN_UP_PATH}`]: { post: { ...(signUp['get'] as JsonSchema), tags: ['sandboxes'], security: [] } },
    [`${basePath}${OWN_SANDBOX_PATH}`]: {
      delete: {
        ...guardedOperation('endSandbox', "End your sandbox", "Ends the caller's self-service sandbox at once: its token stops working, its plants and pending webhook deliveries are removed.", { '204': response('Ended; no body.', rateLimitHeaders) }, []),
        tags: ['sandboxes'],
      },
    },
  };
}
