import type { Log } from '../../core/index.js';

/** The Log port for embedded stores: errors and warnings on standard error, nothing else. */
export const consoleLog: Log = {
  info: () => {},
  warn: (fields, message) => console.error(`plant-store: ${message}`, fields),
  error: (fields, message) => console.error(`plant-store: ${message}`, fields),
};
