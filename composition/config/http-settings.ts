import { mixed, string } from 'yup';
import { HTTP_DEFAULTS, type HttpConfig } from '../../adapters/http/app/http-settings.js';
import { boolean, integer, labelOf, list, numberOrOff, onOff, setting } from './setting.js';

/** How the command serves: the `http` options. Rate limits are on here, off in the library. */
export const httpSettings = {
  port: setting({ option: 'http.port', flag: 'port', env: 'PORT', default: String(HTTP_DEFAULTS.port), help: 'TCP port; 0 picks a free one' }, integer(0, 65535)),
  host: setting(
    { option: 'http.host', flag: 'host', env: 'HOST', default: HTTP_DEFAULTS.host, help: 'address to listen on (0.0.0.0 for every interface)' },
    string().required('must be a host name or address').matches(/^[^\s/]+$/, 'must be a host name or address'),
  ),
  basePath: setting(
    { option: 'http.basePath', flag: 'base-path', env: 'PLANT_STORE_BASE_PATH', default: HTTP_DEFAULTS.basePath, help: 'prefix of the API paths, e.g. /v1' },
    mixed<string>()
      .defined()
      .transform((_, raw: string) => (raw === '/' ? '' : raw))
      .test('shape', 'must look like /v1 (segments of letters, digits, - . _ ~; no trailing slash)', (value) => value === '' || /^(\/[A-Za-z0-9\-._~]+)+$/.test(value ?? '')),
  ),
  rateLimit: setting(
    { option: 'http.rateLimit.perSecond', flag: 'rate-limit', env: 'PLANT_STORE_RATE_LIMIT', default: '50', help: 'requests per second per token, or off' },
    numberOrOff(0.001, 1_000_000),
  ),
  rateBurst: setting(
    { option: 'http.rateLimit.burst', flag: 'rate-burst', env: 'PLANT_STORE_RATE_BURST', default: '100', help: 'requests a token may send at once before the rate applies' },
    integer(1, 1_000_000),
  ),
  authFailureLimit: setting(
    { option: 'http.authFailuresPerMinute', flag: 'auth-failure-limit', env: 'PLANT_STORE_AUTH_FAILURE_LIMIT', default: '30', help: 'failed authentications per minute per client address, or off' },
    numberOrOff(1, 1_000_000),
  ),
  bodyLimit: setting(
    { option: 'http.bodyLimitBytes', flag: 'body-limit', env: 'PLANT_STORE_BODY_LIMIT', default: String(HTTP_DEFAULTS.bodyLimitBytes), help: 'largest request body in bytes' },
    integer(64, 1024 * 1024),
  ),
  headersTimeout: setting(
    {
      option: 'http.headersTimeoutMs',
      flag: 'headers-timeout-ms',
      env: 'PLANT_STORE_HEADERS_TIMEOUT_MS',
      default: String(HTTP_DEFAULTS.headersTimeoutMs),
      help: 'longest time a client may take to send its request headers (408 after)',
    },
    integer(100, 600_000),
  ),
  requestTimeout: setting(
    {
      option: 'http.requestTimeoutMs',
      flag: 'request-timeout-ms',
      env: 'PLANT_STORE_REQUEST_TIMEOUT_MS',
      default: String(HTTP_DEFAULTS.requestTimeoutMs),
      help: 'longest time a client may take to send a whole request, body included (408 after)',
    },
    integer(100, 3_600_000),
  ),
  shutdownGrace: setting(
    { option: 'http.shutdownGraceMs', flag: 'shutdown-grace-ms', env: 'PLANT_STORE_SHUTDOWN_GRACE_MS', default: String(HTTP_DEFAULTS.shutdownGraceMs), help: 'time open requests get to finish on SIGTERM/SIGINT' },
    integer(0, 600_000),
  ),
  corsOrigins: setting(
    { option: 'http.corsOrigins', flag: 'cors-origins', env: 'PLANT_STORE_CORS_ORIGINS', default: HTTP_DEFAULTS.corsOrigins.join(','), help: 'comma-separated origins allowed by CORS (default: CORS off)' },
    list(/^(\*|https?:\/\/[^/\s]+)$/, 'entries must look like https://example.org (no path), or *'),
  ),
  docs: setting(
    { option: 'http.docs', flag: 'docs', env: 'PLANT_STORE_DOCS', default: String(HTTP_DEFAULTS.docs), help: 'serve /openapi.json and the docs page /docs (true or false)' },
    boolean(),
  ),
  feedStreams: setting(
    { option: 'http.feedStreams', flag: 'feed-streams', env: 'PLANT_STORE_FEED_STREAMS', default: String(HTTP_DEFAULTS.feedStreams), help: 'change streams (GET /plants/changes) a server process keeps open at once; 429 past it' },
    integer(1, 1_000_000),
  ),
  feedStreamsPerToken: setting(
    {
      option: 'http.feedStreamsPerToken',
      flag: 'feed-streams-per-token',
      env: 'PLANT_STORE_FEED_STREAMS_PER_TOKEN',
      default: String(HTTP_DEFAULTS.feedStreamsPerToken),
      help: 'change streams one token may have open at once, per server process; 429 past it',
    },
    integer(1, 1_000_000),
  ),
  metrics: setting(
    { option: 'http.metrics', flag: 'metrics', env: 'PLANT_STORE_METRICS', default: HTTP_DEFAULTS.metrics ? 'on' : 'off', help: 'count requests, storage calls and webhooks; serve them for Prometheus at /metrics (on or off)' },
    onOff(),
  ),
};

type Values = { [K in keyof typeof httpSettings]: ReturnType<(typeof httpSettings)[K]['parse']> };

/**
 * The `http` options, each row's value at the option it names (`http.port` → `port`), or
 * why the values disagree. Only the rate limit's two rows make one object.
 */
export function httpOptionsFrom(v: Values): { readonly value: HttpConfig } | string {
  if (v.headersTimeout > v.requestTimeout) {
    return `${labelOf(httpSettings.headersTimeout)} (${v.headersTimeout}) must not exceed ${labelOf(httpSettings.requestTimeout)} (${v.requestTimeout})`;
  }
  const value: Record<string, unknown> = {};
  for (const [name, row] of Object.entries(httpSettings)) {
    const option = row.option.slice('http.'.length);
    if (!option.includes('.')) value[option] = v[name as keyof Values];
  }
  value['rateLimit'] = v.rateLimit === undefined ? undefined : { perSecond: v.rateLimit, burst: v.rateBurst };
  return { value: value as HttpConfig };
}
