import type { ServerLog } from '../../composition/server/build-server.js';

/** A log that drops every line, for code whose logging the test is not about. */
export function quietLog(): ServerLog {
  return { info: () => {}, warn: () => {}, error: () => {} };
}
