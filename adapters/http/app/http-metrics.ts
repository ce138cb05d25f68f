import type { RequestLogFields } from './http-log.js';

/** Where the HTTP adapter counts requests, and what it serves at `/metrics` (see adapters/metrics/). */
export interface HttpMetrics {
  /** Counts a request once its answer is decided, from its request line; runs once per request. */
  request(fields: RequestLogFields): void;
  /** Counts a change stream opening (+1) or ending (-1). */
  feedStreams(delta: 1 | -1): void;
  /** Every metric, in the Prometheus text format. */
  exposition(): Promise<{ readonly contentType: string; readonly text: string }>;
}
