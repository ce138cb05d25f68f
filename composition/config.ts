import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/** Everything the server can be told at start-up. */
export interface ServerConfig {
  readonly port: number;
  readonly host: string;
  readonly basePath: string;
  /** Undefined when none is configured: the server then generates one for its lifetime. */
  readonly tokens: readonly string[] | undefined;
  readonly mongodbUri: string | undefined;
  readonly mongodbDb: string | undefined;
  readonly logLevel: LogLevel;
  /** Requests per second per token, sustained; undefined when rate limiting is off. */
  readonly rateLimit: RateLimitConfig | undefined;
  /** Failed authentications per minute per client address; undefined when off. */
  readonly authFailureLimit: number | undefined;
  readonly bodyLimitBytes: number;
  readonly storageTimeoutMs: number;
  readonly shutdownGraceMs: number;
  /** Origins allowed by CORS; empty means CORS is off. */
  readonly corsOrigins: readonly string[];
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
}

export interface RateLimitConfig {
  readonly perSecond: number;
  readonly burst: number;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A configuration value the server cannot start with; its message is one line for the operator. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export const BODY_LIMIT_BYTES = 16 * 1024;
export const MIN_TOKEN_LENGTH = 16;
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;

interface Setting {
  readonly flag: string;
  readonly env: string;
  readonly default: string;
  readonly help: string;
}

/**
 * Each setting once: its flag, its variable, its default and its help line. A flag wins
 * over its variable. Tokens have no flag on purpose: a command line is visible to every
 * user of the machine (ps), the environment and files are not.
 */
export const settings = {
  port: { flag: 'port', env: 'PORT', default: '3000', help: 'TCP port; 0 picks a free one' },
  host: { flag: 'host', env: 'HOST', default: '127.0.0.1', help: 'address to listen on (0.0.0.0 for every interface)' },
  basePath: { flag: 'base-path', env: 'PLANT_STORE_BASE_PATH', default: '', help: 'prefix of the API paths, e.g. /v1' },
  tokens: { flag: '', env: 'PLANT_STORE_TOKENS', default: '', help: 'comma-separated bearer tokens (no flag: command lines are public)' },
  tokensFile: { flag: 'tokens-file', env: 'PLANT_STORE_TOKENS_FILE', default: '', help: 'file with one bearer token per line' },
  mongodbUri: { flag: 'mongodb-uri', env: 'MONGODB_URI', default: '', help: 'store plants in MongoDB at this URI (default: in memory)' },
  mongodbDb: { flag: 'mongodb-db', env: 'MONGODB_DB', default: '', help: 'database name when the URI has none (default plant_store)' },
  logLevel: { flag: 'log-level', env: 'PLANT_STORE_LOG_LEVEL', default: 'info', help: LOG_LEVELS.join(', ') },
  rateLimit: { flag: 'rate-limit', env: 'PLANT_STORE_RATE_LIMIT', default: '50', help: 'requests per second per token, or off' },
  rateBurst: { flag: 'rate-burst', env: 'PLANT_STORE_RATE_BURST', default: '100', help: 'requests a token may send at once before the rate applies' },
  authFailureLimit: { flag: 'auth-failure-limit', env: 'PLANT_STORE_AUTH_FAILURE_LIMIT', default: '30', help: 'failed authentications per minute per client address, or off' },
  bodyLimit: { flag: 'body-limit', env: 'PLANT_STORE_BODY_LIMIT', default: String(BODY_LIMIT_BYTES), help: 'largest request body in bytes' },
  storageTimeout: { flag: 'storage-timeout-ms', env: 'PLANT_STORE_STORAGE_TIMEOUT_MS', default: '5000', help: 'longest wait for storage before answering 503' },
  shutdownGrace: { flag: 'shutdown-grace-ms', env: 'PLANT_STORE_SHUTDOWN_GRACE_MS', default: '10000', help: 'time open requests get to finish on SIGTERM/SIGINT' },
  headersTimeout: { flag: 'headers-timeout-ms', env: 'PLANT_STORE_HEADERS_TIMEOUT_MS', default: String(HEADERS_TIMEOUT_MS), help: 'longest time a client may take to send its headers (answered 408)' },
  requestTimeout: { flag: 'request-timeout-ms', env: 'PLANT_STORE_REQUEST_TIMEOUT_MS', default: String(REQUEST_TIMEOUT_MS), help: 'longest time a client may take to send a whole request (answered 408)' },
  corsOrigins: { flag: 'cors-origins', env: 'PLANT_STORE_CORS_ORIGINS', default: '', help: 'comma-separated origins allowed by CORS (default: CORS off)' },
} as const satisfies Record<string, Setting>;

type SettingName = keyof typeof settings;

/** The --help text, generated from the settings table so it cannot drift from it. */
export function helpText(): string {
  const rows = Object.values(settings).map((s: Setting) => {
    const flag = s.flag ? `--${s.flag} <value>` : '';
    const fallback = s.default ? ` (default ${s.default})` : '';
    return `  ${flag.padEnd(31)}${s.env.padEnd(33)}${s.help}${fallback}`;
  });
  return [
    'Usage: plant-store [options]',
    '',
    'Serves the Plant Store HTTP API. Every option can also be set by its environment variable;',
    'a flag wins over its variable.',
    '',
    `  ${'flag'.padEnd(31)}${'variable'.padEnd(33)}meaning`,
    ...rows,
    `  ${'--help'.padEnd(31)}${''.padEnd(33)}print this and exit`,
  ].join('\n');
}

/** Reads flags and environment; throws ConfigError naming the first bad value. */
export function readConfig(argv: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const raw = readRaw(argv, env);
  const rateLimit = optionalNumber(raw, 'rateLimit', 0.001, 1_000_000);
  return {
    port: integer(raw, 'port', 0, 65535),
    host: host(raw.host),
    basePath: basePath(raw.basePath),
    tokens: tokens(raw.tokens, raw.tokensFile),
    mongodbUri: raw.mongodbUri || undefined,
    mongodbDb: mongodbDb(raw.mongodbDb),
    logLevel: logLevel(raw.logLevel),
    rateLimit: rateLimit === undefined ? undefined : { perSecond: rateLimit, burst: integer(raw, 'rateBurst', 1, 1_000_000) },
    authFailureLimit: optionalNumber(raw, 'authFailureLimit', 1, 1_000_000),
    bodyLimitBytes: integer(raw, 'bodyLimit', 64, 1024 * 1024),
    storageTimeoutMs: integer(raw, 'storageTimeout', 100, 600_000),
    shutdownGraceMs: integer(raw, 'shutdownGrace', 0, 600_000),
    corsOrigins: corsOrigins(raw.corsOrigins),
    ...timeouts(raw),
  };
}

/** True when the command line asks for help. */
export function wantsHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

function readRaw(argv: readonly string[], env: NodeJS.ProcessEnv): Record<SettingName, string> {
  const options = Object.fromEntries(
    Object.values(settings)
      .filter((s: Setting) => s.flag !== '')
      .map((s: Setting) => [s.flag, { type: 'string' as const }]),
  );
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: [...argv], options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true }));
  } catch (error) {
    throw new ConfigError(`${(error as Error).message.split('\n')[0]} (see --help)`);
  }
  const raw = {} as Record<SettingName, string>;
  for (const [name, setting] of Object.entries(settings) as [SettingName, Setting][]) {
    const fromFlag = setting.flag ? values[setting.flag] : undefined;
    const fromEnv = env[setting.env];
    raw[name] = typeof fromFlag === 'string' ? fromFlag : fromEnv !== undefined && fromEnv !== '' ? fromEnv : setting.default;
  }
  return raw;
}

const label = (name: SettingName) => {
  const s: Setting = settings[name];
  return s.flag ? `--${s.flag} / ${s.env}` : s.env;
};

function integer(raw: Record<SettingName, string>, name: SettingName, min: number, max: number): number {
  const text = raw[name].trim();
  if (!/^\d{1,9}$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new ConfigError(`${label(name)} must be an integer from ${min} to ${max}, got "${raw[name]}"`);
  }
  return Number(text);
}

function optionalNumber(raw: Record<SettingName, string>, name: SettingName, min: number, max: number): number | undefined {
  const text = raw[name].trim();
  if (text === 'off') return undefined;
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= max)) {
    throw new ConfigError(`${label(name)} must be a number from ${min} to ${max}, or off, got "${raw[name]}"`);
  }
  return value;
}

function timeouts(raw: Record<SettingName, string>): { headersTimeoutMs: number; requestTimeoutMs: number } {
  const headersTimeoutMs = integer(raw, 'headersTimeout', 100, 600_000);
  const requestTimeoutMs = integer(raw, 'requestTimeout', 100, 3_600_000);
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(`${label('headersTimeout')} (${headersTimeoutMs}) must not exceed ${label('requestTimeout')} (${requestTimeoutMs})`);
  }
  return { headersTimeoutMs, requestTimeoutMs };
}

function host(raw: string): string {
  if (raw === '' || /[\s/]/.test(raw)) throw new ConfigError(`${label('host')} must be a host name or address, got "${raw}"`);
  return raw;
}

function basePath(raw: string): string {
  if (raw === '' || raw === '/') return '';
  if (!/^(\/[A-Za-z0-9\-._~]+)+$/.test(raw)) {
    throw new ConfigError(`${label('basePath')} must look like /v1 (segments of letters, digits, - . _ ~; no trailing slash), got "${raw}"`);
  }
  return raw;
}

function mongodbDb(raw: string): string | undefined {
  if (raw === '') return undefined;
  if (!/^[A-Za-z0-9_-]{1,63}$/.test(raw)) throw new ConfigError(`${label('mongodbDb')} must be 1-63 letters, digits, _ or -, got "${raw}"`);
  return raw;
}

function logLevel(raw: string): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(raw)) {
    throw new ConfigError(`${label('logLevel')} must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return raw as LogLevel;
}

function corsOrigins(raw: string): string[] {
  const origins = raw.split(',').map((origin) => origin.trim()).filter((origin) => origin !== '');
  for (const origin of origins) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new ConfigError(`${label('corsOrigins')} entries must look like https://example.org (no path), got "${origin}"`);
    }
  }
  return origins;
}

// RFC 6750 b64token: what may follow "Bearer " in the header.
const tokenSyntax = /^[A-Za-z0-9\-._~+/]+=*$/;

function tokens(list: string, file: string): string[] | undefined {
  const found: string[] = [];
  if (list.trim() !== '') found.push(...list.split(','));
  if (file !== '') found.push(...readTokenFile(file));
  if (found.length === 0) return undefined;
  return found.map((token, index) => checkToken(token.trim(), index + 1));
}

function readTokenFile(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${label('tokensFile')} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): ${path}`);
  }
  // One token per line; blank lines and # comments are skipped.
  const lines = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
  if (lines.length === 0) throw new ConfigError(`${label('tokensFile')} holds no token: ${path}`);
  return lines;
}

// Errors name the token's position, never the token.
function checkToken(token: string, position: number): string {
  if (!tokenSyntax.test(token)) {
    throw new ConfigError(`token #${position} has characters a bearer token cannot carry (allowed: A-Z a-z 0-9 - . _ ~ + / and trailing =)`);
  }
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new ConfigError(`token #${position} is shorter than ${MIN_TOKEN_LENGTH} characters; use a long random token`);
  }
  return token;
}
