import { MongoError } from 'mongodb';
import { ErrorCode, PlantStoreError } from '../../../core/index.js';
import { withinDeadline } from '../storage-unavailable.js';

/** MongoDB's duplicate key error: the unique `_id` index refused an insert. */
export function isDuplicateKey(error: unknown): boolean {
  return error instanceof MongoError && error.code === 11000;
}

/**
 * Runs one driver call under a deadline. The driver (v7) ignores `timeoutMS`, and its
 * socket and server-selection timeouts do not bound everything (a frozen server keeps the
 * TCP connection open), so the deadline is enforced here. Any failure is StorageUnavailable:
 * not only MongoError, since the driver does not wrap every network failure (v7 can reject
 * with Node's own EPIPE "socket has been ended" when the server goes away).
 */
export function withDeadline<T>(timeoutMS: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  return withinDeadline(timeoutMS, () => new DeadlineExceeded(`the database did not answer within ${timeoutMS} ms`), call);
}

/**
 * Start-up could not reach the database: one error naming the hosts and the cause an
 * operator can act on (refused, no answer, name not found, authentication), never the URI
 * (it may hold credentials).
 */
export function connectFailure(hosts: string, timeoutMS: number, errors: readonly unknown[]): PlantStoreError {
  return new PlantStoreError(ErrorCode.StorageUnavailable, `cannot reach MongoDB at ${hosts}: ${connectCause(errors, timeoutMS)}`, { cause: errors[0] });
}

/** The most telling cause among the errors and their causes. */
function connectCause(errors: readonly unknown[], timeoutMS: number): string {
  const seen: unknown[] = [];
  for (const error of errors) {
    for (let e = error; e instanceof Error && !seen.includes(e); e = (e as { cause?: unknown }).cause) seen.push(e);
  }
  const text = seen.map((e) => `${(e as Error).name} ${(e as Error).message} ${(e as { code?: unknown }).code ?? ''}`).join(' ');
  if (/ECONNREFUSED/.test(text)) return 'connection refused';
  if (/ENOTFOUND|EAI_AGAIN/.test(text)) return 'host name not found';
  // 18 is MongoDB's AuthenticationFailed.
  if (seen.some((e) => (e as { code?: unknown }).code === 18) || /authentication failed/i.test(text)) return 'authentication failed';
  if (/ECONNRESET|EPIPE/.test(text)) return 'connection reset';
  if (seen.some((e) => e instanceof DeadlineExceeded) || /timed out|timeout/i.test(text)) return `no answer within ${timeoutMS} ms`;
  return (seen[0] as Error | undefined)?.message ?? 'unknown failure';
}

// Also the reason the driver rejects with when our signal aborts a call.
class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
}
