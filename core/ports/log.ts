/** Where the core says what it did: fields for machines, a message for people (pino's shape). */
export interface Log {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}
