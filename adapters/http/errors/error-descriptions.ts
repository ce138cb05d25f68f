import { ErrorCode } from '../../../core/index.js';

/**
 * What each error code means, as the OpenAPI document tells clients. A total record, like
 * `statusByErrorCode`, so a new code cannot reach the document undescribed.
 */
export const descriptionByErrorCode: Readonly<Record<ErrorCode, string>> = {
  [ErrorCode.InvalidPlant]: 'the body fails validation (missing name or id, wrong types, out of range)',
  [ErrorCode.MalformedBody]: 'the body is not valid JSON, or not a JSON object',
  [ErrorCode.InvalidParameter]: 'a path or query parameter is invalid (`/plants/abc`, `limit=0`)',
  [ErrorCode.MissingToken]: 'no bearer token',
  [ErrorCode.InvalidToken]: 'the bearer token is malformed, unknown, expired or otherwise unverifiable',
  [ErrorCode.InsufficientScope]: 'the token lacks the scope the operation needs (`WWW-Authenticate` names it)',
  [ErrorCode.NoSandbox]: 'the token names no sandbox where sandboxes come from a JWT claim',
  [ErrorCode.SandboxFull]: 'the sandbox holds its maximum number of plants',
  [ErrorCode.NoSuchRoute]: 'no such route',
  [ErrorCode.PlantNotFound]: 'no plant with that id',
  [ErrorCode.MethodNotAllowed]: 'the method is not allowed on this path (`Allow` lists the allowed ones)',
  [ErrorCode.RequestTimeout]: 'the request (headers or body) did not arrive in time; the connection is closed',
  [ErrorCode.PlantExists]: 'a plant with that id already exists',
  [ErrorCode.BodyTooLarge]: 'the body is larger than the configured limit',
  [ErrorCode.UnsupportedMediaType]: 'the body is not sent as `Content-Type: application/json` (or has an unsupported `Content-Encoding`)',
  [ErrorCode.ExpectationFailed]: 'an `Expect` header the server cannot meet (only `100-continue` is understood)',
  [ErrorCode.RateLimited]: 'rate limit exceeded (`Retry-After` says when to retry)',
  [ErrorCode.HeadersTooLarge]: 'the request headers are too large or too many; the connection is closed',
  [ErrorCode.Internal]: 'unexpected failure, logged with the request id; nothing internal in the body',
  [ErrorCode.StorageUnavailable]: 'storage unavailable (database down or timing out)',
  [ErrorCode.VerificationUnavailable]: "token verification unavailable (the identity provider's keys cannot be fetched); retry later, the token may be good",
};
