import { ErrorCode } from '../../../core/index.js';
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
  /** A request Node's HTTP parser rejects (bad framing, no Host): any path, connection closed. */
  UnparsableRequest: 'UnparsableRequest',
  /** Headers or body too slow (the configured timeouts): any path, connection closed. */
  RequestTimeout: 'RequestTimeout',
  /** An `Expect` other than `100-continue`: any path, connection closed. */
  ExpectationFailed: 'ExpectationFailed',
  /** Request headers over Node's size or count limit: any path, connection closed. */
  HeadersTooLarge: 'HeadersTooLarge',
} as const;

/**
 * Answers given before any route is chosen, by status; each closes the connection. The
 * conformance test looks them up here.
 */
export const connectionLevelResponses: Readonly<Record<number, string>> = {
  400: NonOperationResponse.UnparsableRequest,
  408: NonOperationResponse.RequestTimeout,
  417: NonOperationResponse.ExpectationFailed,
  431: NonOperationResponse.HeadersTooLarge,
};

export function nonOperationResponses(): Record<string, JsonSchema> {
  return {
    [NonOperationResponse.NoSuchRoute]: errorResponse([ErrorCode.NoSuchRoute], []),
    [NonOperationResponse.MethodNotAllowed]: errorResponse([ErrorCode.MethodNotAllowed], ['Allow']),
    [NonOperationResponse.AllowedMethods]: response('`OPTIONS` on a known path: the methods it answers, no body, no token needed.', ['Allow']),
    [NonOperationResponse.UnparsableRequest]: errorResponse([ErrorCode.MalformedBody], []),
    [NonOperationResponse.RequestTimeout]: errorResponse([ErrorCode.RequestTimeout], []),
    [NonOperationResponse.ExpectationFailed]: errorResponse([ErrorCode.ExpectationFailed], []),
    [NonOperationResponse.HeadersTooLarge]: errorResponse([ErrorCode.HeadersTooLarge], []),
    [NonOperationResponse.CorsPreflight]: response(
      'A CORS preflight from an allowed origin (only when CORS origins are configured): `Access-Control-*` headers, no body.',
      [],
    ),
  };
}
