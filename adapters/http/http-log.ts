/**
 * The slice of a structured logger (pino's shape) the HTTP adapter writes to. On its own,
 * free of Koa types, because embedded users pass one to startServer.
 */
export interface HttpLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}
