import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { StaticToken } from '../adapters/auth/static-token-rules.js';
import { jwtFrom, type JwtConfig } from './jwt-config.js';
import { staticTokensFrom } from './static-tokens-config.js';

/** Everything the server can be told at start-up. */
export interface ServerConfig {
  readonly port: number;
  readonly host: string;
  readonly basePath: string;
  /** Undefined when none is configured: the server then generates one for its lifetime. */
  readonly tokens: readonly StaticToken[] | undefined;
  /** The identity provider whose JWTs are accepted; undefined when none is configured. */
  readonly jwt: JwtConfig | undefined;
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
export { MIN_TOKEN_LENGTH } from '../adapters/auth/static-token-rules.js';

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
  tokensFile: { flag: 'tokens-file', env: 'PLANT_STORE_TOKENS_FILE', default: '', help: 'file with one bearer token per line, optionally followed by scopes' },
  jwtJwksUrl: { flag: 'jwt-jwks-url', env: 'PLANT_STORE_JWT_JWKS_URL', default: '', help: "accept JWTs signed by the keys at this URL (the identity provider's JWKS)" },
  jwtIssuer: { flag: 'jwt-issuer', env: 'PLANT_STORE_JWT_ISSUER', default: '', help: 'the iss claim JWTs must carry (needed with the JWKS URL)' },
  jwtAudience: { flag: 'jwt-audience', env: 'PLANT_STORE_JWT_AUDIENCE', default: '', help: 'the aud claim JWTs must carry (needed with the JWKS URL)' },
  jwtScopeClaim: { flag: 'jwt-scope-claim', env: 'PLANT_STORE_JWT_SCOPE_CLAIM', default: '', help: 'claim holding the scopes (default: scope, also reading scp)' },
  mongodbUri: { flag: 'mongodb-uri', env: 'MONGODB_URI', default: '', help: 'store plants in MongoDB at this URI (default: in memory)' },
  mongodbDb: { flag: 'mongodb-db', env: 'MONGODB_DB', default: '', help: 'database name when the URI has none (default plant_store)' },
  logLevel: { flag: 'log-level', env: 'PLANT_STORE_LOG_LEVEL', default: 'info', help: LOG_LEVELS.join(', ') },
  rateLimit: { flag: 'rate-limit', env: 'PLANT_STORE_RATE_LIMIT', default: '50', help: 'requests per second per token, or off' },
  rateBurst: { flag: 'rate-burst', env: 'PLANT_STORE_RATE_BURST', default: '100', help: 'requests a token may send at once before the rate applies' },
  authFailureLimit: { flag: 'auth-failure-limit', env: 'PLANT_STORE_AUTH_FAILURE_LIMIT', default: '30', help: 'failed authentications per minute per client address, or off' },
  bodyLimit: { flag: 'body-limit', env: 'PLANT_STORE_BODY_LIMIT', default: String(BODY_LIMIT_BYTES), help: 'largest request body in bytes' },
  storageTimeout: { flag: 'storage-timeout-ms', env: 'PLANT_STORE_STORAGE_TIMEOUT_MS', default: '5000', help: 'longest wait for storage before answering 503' },
  shutdownGrace: { flag: 'shutdown-grace-ms', env: 'PLANT_STORE_SHUTDOWN_GRACE_MS', default: '10000', help: 'time open requests get to finish on SIGTERM/SIGINT' },
  corsOrigins: { flag: 'cors-origins', env: 'PLANT_STORE_CORS_ORIGINS', default: '', help: 'comma-separated origins allowed by CORS (default: CORS off)' },
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof settings;

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
    jwt: jwtFrom(raw, label),
    mongodbUri: raw.mongodbUri || undefined,
    mongodbDb: mongodbDb(raw.mongodbDb),
    logLevel: logLevel(raw.logLevel),
    rateLimit: rateLimit === undefined ? undefined : { perSecond: rateLimit, burst: integer(raw, 'rateBurst', 1, 1_000_000) },
    authFailureLimit: optionalNumber(raw, 'authFailureLimit', 1, 1_000_000),
    bodyLimitBytes: integer(raw, 'bodyLimit', 64, 1024 * 1024),
    storageTimeoutMs: integer(raw, 'storageTimeout', 100, 600_000),
    shutdownGraceMs: integer(raw, 'shutdownGrace', 0, 600_000),
    corsOrigins: corsOrigins(raw.corsOrigins),
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

export const label = (name: SettingName) => {
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

function tokens(list: string, file: string): StaticToken[] | undefined {
  const found: string[] = [];
  if (list.trim() !== '') found.push(...list.split(','));
  if (file !== '') found.push(...readTokenFile(file));
  if (found.length === 0) return undefined;
  return staticTokensFrom(found);
}

function readTokenFile(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${label('tokensFile')} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): ${path}`);
  }
  // One token per line, optionally followed by its scopes; blank lines and # comments are skipped.
  const lines = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
  if (lines.length === 0) throw new ConfigError(`${label('tokensFile')} holds no token: ${path}`);
  return lines;
}
