import { mixed, number, string, type InferType, type Schema } from 'yup';
import type { StaticToken } from '../adapters/auth/static-token-rules.js';
import { staticTokensFrom } from './static-tokens-config.js';
import { DEFAULT_RETRY_SCHEDULE, DEFAULT_WEBHOOK_EVENTS, DEFAULT_WEBHOOK_TIMEOUT_MS, parseRetrySchedule, secretProblem, urlProblem, WEBHOOK_EVENT_TYPES } from './webhook-options.js';
import { ConfigError } from './config-error.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const BODY_LIMIT_BYTES = 16 * 1024;
/** Deliberate client time limits (Node's own are 60 s for headers and 300 s per request). */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;

export const STORAGE_KINDS = ['disk', 'memory', 'mongodb'] as const;
export type StorageKind = (typeof STORAGE_KINDS)[number];

/**
 * One setting: its flag (empty: variable only), its variable, its default as text, its help
 * line, and the yup schema that turns the text into a typed value or a one-line refusal
 * (the refusal is prefixed with the flag and variable, and followed by the value given).
 */
export interface Setting<T> {
  readonly flag: string;
  readonly env: string;
  readonly default: string;
  readonly help: string;
  /**
   * The typed value; or a yup ValidationError whose message says what is accepted (the value
   * is quoted after it), or a ConfigError whose message stands alone (for secrets: never quoted).
   */
  parse(text: string): T;
}

const setting = <S extends Schema<any, any, any, any>>(flag: string, env: string, defaultText: string, help: string, schema: S): Setting<InferType<S>> => ({
  flag,
  env,
  default: defaultText,
  help,
  parse: (text) => schema.validateSync(text),
});

/** Decimal digits only, within bounds: `1e3`, `0x10` and `-1` are refused, not guessed at. */
function integer(min: number, max: number) {
  const rule = `must be an integer from ${min} to ${max}`;
  return number()
    .transform((_, raw: string) => (/^\d{1,9}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN))
    .typeError(rule)
    .required(rule)
    .min(min, rule)
    .max(max, rule);
}

/** A positive number (decimals allowed), or `off` for undefined. */
function numberOrOff(min: number, max: number) {
  const rule = `must be a number from ${min} to ${max}, or off`;
  return mixed<number>()
    .transform((_, raw: string) => {
      const text = raw.trim();
      if (text === 'off') return undefined;
      return /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
    })
    .test('bounded', rule, (value) => value === undefined || (value >= min && value <= max));
}

/** Optional text matching `pattern`; empty means not given. */
function optionalText(pattern: RegExp, rule: string) {
  return mixed<string>()
    .transform((_, raw: string) => (raw === '' ? undefined : raw))
    .test('shape', rule, (value) => value === undefined || pattern.test(value));
}

/** A comma-separated list, blanks dropped; each entry must match `pattern`. */
function list(pattern: RegExp, rule: string) {
  return mixed<string[]>()
    .defined()
    .transform((_, raw: string) =>
      raw
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
    )
    .test('entries', rule, (entries) => entries !== undefined && entries.every((entry) => pattern.test(entry)));
}

/**
 * Each setting once. A flag wins over its variable. Tokens have no flag on purpose: a
 * command line is visible to every user of the machine (ps), the environment and files are not.
 */
export const settings = {
  port: setting('port', 'PORT', '3000', 'TCP port; 0 picks a free one', integer(0, 65535)),
  host: setting(
    'host',
    'HOST',
    '127.0.0.1',
    'address to listen on (0.0.0.0 for every interface)',
    string().required('must be a host name or address').matches(/^[^\s/]+$/, 'must be a host name or address'),
  ),
  basePath: setting(
    'base-path',
    'PLANT_STORE_BASE_PATH',
    '',
    'prefix of the API paths, e.g. /v1',
    mixed<string>()
      .defined()
      .transform((_, raw: string) => (raw === '/' ? '' : raw))
      .test('shape', 'must look like /v1 (segments of letters, digits, - . _ ~; no trailing slash)', (value) => value === '' || /^(\/[A-Za-z0-9\-._~]+)+$/.test(value ?? '')),
  ),
  tokens: {
    flag: '',
    env: 'PLANT_STORE_TOKENS',
    default: '',
    help: 'comma-separated bearer tokens, each optionally followed by scopes (no flag: command lines are public)',
    // Checked by the static-token adapter's own rules; a refusal names the position, never the token.
    parse: (text: string): StaticToken[] | undefined => {
      const entries = text
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== '');
      return entries.length === 0 ? undefined : staticTokensFrom(entries);
    },
  },
  tokensFile: setting(
    'tokens-file',
    'PLANT_STORE_TOKENS_FILE',
    '',
    'file with one bearer token per line, optionally followed by scopes',
    optionalText(/^.+$/, 'must name a file'),
  ),
  jwtJwksUrl: setting('jwt-jwks-url', 'PLANT_STORE_JWT_JWKS_URL', '', "accept JWTs signed by the keys at this URL (the identity provider's JWKS)", optionalText(/^.+$/, 'must not be empty')),
  jwtIssuer: setting('jwt-issuer', 'PLANT_STORE_JWT_ISSUER', '', 'the iss claim JWTs must carry (needed with the JWKS URL)', optionalText(/^.+$/, 'must not be empty')),
  jwtAudience: setting('jwt-audience', 'PLANT_STORE_JWT_AUDIENCE', '', 'the aud claim JWTs must carry (needed with the JWKS URL)', optionalText(/^.+$/, 'must not be empty')),
  jwtScopeClaim: setting('jwt-scope-claim', 'PLANT_STORE_JWT_SCOPE_CLAIM', '', 'claim holding the scopes (default: scope, also reading scp)', optionalText(/^.+$/, 'must not be empty')),
  storage: setting(
    'storage',
    'PLANT_STORE_STORAGE',
    '',
    `${STORAGE_KINDS.join(', ')} (default disk, or mongodb when a MongoDB URI is set)`,
    optionalText(new RegExp(`^(${STORAGE_KINDS.join('|')})$`), `must be one of ${STORAGE_KINDS.join(', ')}`),
  ),
  dataDir: setting(
    'data-dir',
    'PLANT_STORE_DATA_DIR',
    './plant-store-data',
    'directory of the disk storage, created if missing',
    string().required('must name a directory').matches(/\S/, 'must name a directory'),
  ),
  mongodbUri: setting(
    'mongodb-uri',
    'MONGODB_URI',
    '',
    'store plants in MongoDB at this URI',
    optionalText(/^mongodb(\+srv)?:\/\/\S+$/, 'must be a mongodb:// or mongodb+srv:// URI'),
  ),
  mongodbDb: setting(
    'mongodb-db',
    'MONGODB_DB',
    '',
    'database name when the URI has none (default plant_store)',
    optionalText(/^[A-Za-z0-9_-]{1,63}$/, 'must be 1-63 letters, digits, _ or -'),
  ),
  logLevel: setting(
    'log-level',
    'PLANT_STORE_LOG_LEVEL',
    'info',
    LOG_LEVELS.join(', '),
    string<LogLevel>().required().oneOf(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`),
  ),
  rateLimit: setting('rate-limit', 'PLANT_STORE_RATE_LIMIT', '50', 'requests per second per token, or off', numberOrOff(0.001, 1_000_000)),
  rateBurst: setting('rate-burst', 'PLANT_STORE_RATE_BURST', '100', 'requests a token may send at once before the rate applies', integer(1, 1_000_000)),
  authFailureLimit: setting(
    'auth-failure-limit',
    'PLANT_STORE_AUTH_FAILURE_LIMIT',
    '30',
    'failed authentications per minute per client address, or off',
    numberOrOff(1, 1_000_000),
  ),
  bodyLimit: setting('body-limit', 'PLANT_STORE_BODY_LIMIT', String(BODY_LIMIT_BYTES), 'largest request body in bytes', integer(64, 1024 * 1024)),
  storageTimeout: setting(
    'storage-timeout-ms',
    'PLANT_STORE_STORAGE_TIMEOUT_MS',
    '5000',
    'longest wait for storage before answering 503',
    integer(100, 600_000),
  ),
  headersTimeout: setting(
    'headers-timeout-ms',
    'PLANT_STORE_HEADERS_TIMEOUT_MS',
    String(HEADERS_TIMEOUT_MS),
    'longest time a client may take to send its request headers (408 after)',
    integer(100, 600_000),
  ),
  requestTimeout: setting(
    'request-timeout-ms',
    'PLANT_STORE_REQUEST_TIMEOUT_MS',
    String(REQUEST_TIMEOUT_MS),
    'longest time a client may take to send a whole request, body included (408 after)',
    integer(100, 3_600_000),
  ),
  shutdownGrace: setting(
    'shutdown-grace-ms',
    'PLANT_STORE_SHUTDOWN_GRACE_MS',
    '10000',
    'time open requests get to finish on SIGTERM/SIGINT',
    integer(0, 600_000),
  ),
  corsOrigins: setting(
    'cors-origins',
    'PLANT_STORE_CORS_ORIGINS',
    '',
    'comma-separated origins allowed by CORS (default: CORS off)',
    list(/^(\*|https?:\/\/[^/\s]+)$/, 'entries must look like https://example.org (no path), or *'),
  ),
  webhookUrls: setting(
    'webhook-urls',
    'PLANT_STORE_WEBHOOK_URLS',
    '',
    'comma-separated endpoint URLs receiving a signed POST per event',
    mixed<string[]>()
      .defined()
      .transform((_, raw: string) => raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== ''))
      .test('urls', (urls, context) => {
        const problem = (urls ?? []).map(urlProblem).find((p) => p !== undefined);
        return problem === undefined || context.createError({ message: `entries must be http(s) URLs: ${problem}` });
      }),
  ),
  webhookSecret: {
    flag: '',
    env: 'PLANT_STORE_WEBHOOK_SECRET',
    default: '',
    help: 'Standard Webhooks signing secret whsec_<base64>, needed with webhook URLs (no flag: command lines are public)',
    // A refusal never quotes the secret.
    parse: (text: string): string | undefined => {
      if (text === '') return undefined;
      const problem = secretProblem(text);
      if (problem !== undefined) throw new ConfigError(problem);
      return text;
    },
  },
  webhookEvents: setting(
    'webhook-events',
    'PLANT_STORE_WEBHOOK_EVENTS',
    DEFAULT_WEBHOOK_EVENTS.join(','),
    `events sent to the webhook URLs: ${WEBHOOK_EVENT_TYPES.join(', ')}`,
    list(new RegExp(`^(${WEBHOOK_EVENT_TYPES.join('|').replaceAll('.', '\\.')})$`), `entries must be ${WEBHOOK_EVENT_TYPES.join(' or ')}`),
  ),
  webhookRetrySchedule: setting(
    'webhook-retry-schedule',
    'PLANT_STORE_WEBHOOK_RETRY_SCHEDULE',
    DEFAULT_RETRY_SCHEDULE,
    'delays between attempts (ms, s, m, h); failed after the last',
    mixed<number[]>()
      .transform((_, raw: string) => parseRetrySchedule(raw))
      .defined('must be delays like 5s,5m,2h (a number and ms, s, m or h, at most a week each)'),
  ),
  webhookTimeout: setting('webhook-timeout-ms', 'PLANT_STORE_WEBHOOK_TIMEOUT_MS', String(DEFAULT_WEBHOOK_TIMEOUT_MS), 'longest wait for an endpoint per attempt', integer(100, 600_000)),
  webhookAllowPrivate: setting(
    'webhook-allow-private',
    'PLANT_STORE_WEBHOOK_ALLOW_PRIVATE',
    'false',
    'allow endpoints on loopback, private and link-local addresses (true or false)',
    mixed<boolean>()
      .transform((_, raw: string) => ({ true: true, false: false, '1': true, '0': false })[raw.trim().toLowerCase()])
      .defined('must be true or false'),
  ),
} as const;

export type SettingName = keyof typeof settings;
/** The typed value of each setting. */
export type SettingValues = { [K in SettingName]: (typeof settings)[K] extends Setting<infer T> ? T : never };
