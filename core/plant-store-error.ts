import type { ErrorCode } from './error-codes.js';

/**
 * The one error type of the store. `message` is written for the caller: it names the
 * offending field or parameter and never carries internal detail (that goes in `cause`).
 */
export class PlantStoreError extends Error {
  override readonly name = 'PlantStoreError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isPlantStoreError(error: unknown): error is PlantStoreError {
  return error instanceof PlantStoreError;
}
