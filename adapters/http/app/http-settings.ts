import type { HttpLog } from './http-log.js';

/** A per-principal token bucket: requests per second sustained, and how many at once. */
export interface RateLimitConfig {
  readonly perSecond: number;
  readonly burst: number;
}

/** How a store is served, apart from which tokens it accepts. Each default is in HTTP_DEFAULTS. */
export interface HttpSettings {
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** Prefix of the API paths, e.g. `/v1`. */
  readonly basePath?: string;
  readonly bodyLimitBytes?: number;
  /** One line per request, 5xx causes included; default: nothing is logged. */
  readonly log?: HttpLog;
  /** Per-principal token bucket; default off here (the command turns it on). */
  readonly rateLimit?: RateLimitConfig | undefined;
  /** Failed authentications per minute per address; default off here (the command turns it on). */
  readonly authFailuresPerMinute?: number | undefined;
  /** Origins allowed by CORS; none: CORS off. */
  readonly corsOrigins?: readonly string[];
  /** Longest time a client may take to send its headers. */
  readonly headersTimeoutMs?: number;
  /** Longest time a client may take to send a whole request. */
  readonly requestTimeoutMs?: number;
  /** On close, how long open requests get to finish before their connections are cut. */
  readonly shutdownGraceMs?: number;
  /** Serve `/openapi.json` and the docs page. */
  readonly docs?: boolean;
  /** Count requests and serve Prometheus metrics at `/metrics` (see docs/metrics.md). */
  readonly metrics?: boolean;
  /** Change streams open at once in this process; past it, 429. */
  readonly feedStreams?: number;
  /** Change streams open at once for one token; past it, 429. */
  readonly feedStreamsPerToken?: number;
}

/** HttpSettings with every value decided: the defaults applied, or the command's configuration. */
export type HttpConfig = Required<Omit<HttpSettings, 'log' | 'rateLimit' | 'authFailuresPerMinute'>> & {
  readonly rateLimit: RateLimitConfig | undefined;
  readonly authFailuresPerMinute: number | undefined;
};

/**
 * The defaults of HttpSettings, for the library and the command alike (the settings table
 * shows these). Client time limits are deliberate: Node's own are 60 s for headers and
 * 300 s per request.
 */
export const HTTP_DEFAULTS = {
  host: '127.0.0.1',
  port: 3000,
  basePath: '',
  bodyLimitBytes: 16 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  shutdownGraceMs: 10_000,
  corsOrigins: [],
  docs: true,
  metrics: false,
  // A stream catching up while its client does not read holds its read batch and its
  // buffers (event-stream.ts): about 0.5 MB of RSS each, measured (docs/change-feed.md).
  feedStreams: 500,
  feedStreamsPerToken: 100,
} as const satisfies HttpSettings;
