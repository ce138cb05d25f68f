import type { Log } from '../../../core/index.js';

/**
 * What the HTTP adapter writes to: the Log port's info and error (embedded users pass any
 * such logger to startServer), and optionally a cheaper way to write the request line.
 */
export type HttpLog = Pick<Log, 'info' | 'error'> & {
  /** Writes the request line, the same line as `info(fields, 'request')` would; it runs once per request. */
  request?(fields: RequestLogFields): void;
};

/** The fields of a request line (see logRequest). */
export interface RequestLogFields {
  readonly requestId: string | undefined;
  readonly method: string;
  /** The matched route's pattern, null when none matched. */
  readonly route: string | null;
  readonly path: string | undefined;
  readonly status: number;
  readonly error: number | undefined;
  readonly durationMs: number;
  readonly tokenHolder: string | undefined;
  /** The trace id of a well-formed W3C `traceparent` header. */
  readonly traceId?: string | undefined;
}
