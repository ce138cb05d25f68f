/**
 * Every numeric `error` code of the API contract. HTTP statuses live in the HTTP adapter;
 * embedded callers see the same codes on thrown `PlantStoreError`s.
 */
export const ErrorCode = {
  InvalidPlant: 40001,
  MalformedBody: 40002,
  InvalidParameter: 40003,
  MissingToken: 40101,
  InvalidToken: 40102,
  InsufficientScope: 40301,
  NoSandbox: 40302,
  SandboxFull: 40303,
  NoSuchRoute: 40400,
  PlantNotFound: 40401,
  MethodNotAllowed: 40501,
  RequestTimeout: 40801,
  PlantExists: 40901,
  BodyTooLarge: 41301,
  UnsupportedMediaType: 41501,
  ExpectationFailed: 41701,
  RateLimited: 42901,
  HeadersTooLarge: 43101,
  Internal: 50001,
  StorageUnavailable: 50301,
  VerificationUnavailable: 50302,
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
