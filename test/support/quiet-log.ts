import type { Log } from '../../core/index.js';

/** A log that drops every line, for code whose logging the test is not about. */
export function quietLog(): Log {
  return { info: () => {}, warn: () => {}, error: () => {} };
}
