import { ErrorCode } from '../../core/index.js';
import { errorResponse, response } from './openapi-responses.js';
import type { JsonSchema } from './openapi-schemas.js';

/**
 * Answers the router gives outside any documented operation: OpenAPI cannot attach them to
 * an operation (there is none), so they live in `components.responses`, named here.
 */
export const NonOperationResponse = {
  /** Any path no route matches. */
  NoSuchRoute: 'NoSuchRoute',
  /** A known path with a method it does not answer. */
  MethodNotAllowed: 'MethodNotAllowed',
  /** `OPTIONS` on a known path. */
  AllowedMethods: 'AllowedMethods',
  /** A CORS preflight, when CORS origins are configured. */
  CorsPreflight: 'CorsPreflight',
  /** A request Node's HTTP parser rejects (bad framing): any path, connection closed. */
  UnparsableRequest: 'UnparsableRequest',
} as const;

export function nonOperationResponses(): Record<string, JsonSchema> {
  return {
    [NonOperationResponse.NoSuchRoute]: errorResponse([ErrorCode.NoSuchRoute], []),
    [NonOperationResponse.MethodNotAllowed]: errorResponse([ErrorCode.MethodNotAllowed], ['Allow']),
    [NonOperationResponse.AllowedMethods]: response('`OPTIONS` on a known path: the methods it answers, no body, no token needed.', ['Allow']),
    [NonOperationResponse.UnparsableRequest]: errorResponse([ErrorCode.MalformedBody], []),
    [NonOperationResponse.CorsPreflight]: response(
      'A CORS preflight from an allowed origin (only when CORS origins are configured): `Access-Control-*` headers, no body.',
      [],
    ),
  };
}
