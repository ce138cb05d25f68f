import { ErrorCode } from '../../../core/index.js';

/**
 * The one place where an error code becomes an HTTP status. Typed as a total record, so a
 * code added to the core does not compile until it is mapped here.
 */
export const statusByErrorCode: Readonly<Record<ErrorCode, number>> = {
  [ErrorCode.InvalidPlant]: 400,
  [ErrorCode.MalformedBody]: 400,
  [ErrorCode.InvalidParameter]: 400,
  [ErrorCode.MissingToken]: 401,
  [ErrorCode.InvalidToken]: 401,
  [ErrorCode.InsufficientScope]: 403,
  [ErrorCode.NoSandbox]: 403,
  [ErrorCode.SandboxFull]: 403,
  [ErrorCode.NoSuchRoute]: 404,
  [ErrorCode.PlantNotFound]: 404,
  [ErrorCode.MethodNotAllowed]: 405,
  [ErrorCode.RequestTimeout]: 408,
  [ErrorCode.PlantExists]: 409,
  [ErrorCode.BodyTooLarge]: 413,
  [ErrorCode.UnsupportedMediaType]: 415,
  [ErrorCode.ExpectationFailed]: 417,
  [ErrorCode.RateLimited]: 429,
  [ErrorCode.HeadersTooLarge]: 431,
  [ErrorCode.Internal]: 500,
  [ErrorCode.StorageUnavailable]: 503,
  [ErrorCode.VerificationUnavailable]: 503,
};
