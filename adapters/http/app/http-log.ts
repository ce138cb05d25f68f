/**
 * The slice of a structured logger (pino's shape) the HTTP adapter writes to. On its own,
 * free of Koa types, because embedded users pass one to startServer.
 */
export interface HttpLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
  /**
   * Optional: writes the request line, the same line as `info(fields, 'request')` would,
   * for a log that can do it cheaper (it runs once per request).
   */
  request?(fields: RequestLogFields): void;
}

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
}
