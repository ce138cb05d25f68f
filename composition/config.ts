import { parseArgs } from 'node:util';
import { ValidationError } from 'yup';
import type { StaticToken } from '../adapters/auth/static-token-rules.js';
import { ConfigError } from './config-error.js';
import { jwtFrom, type JwtConfig } from './jwt-config.js';
import { webhooksFrom } from './webhook-config.js';
import type { WebhookOptions } from './webhook-options.js';
import { settings, type LogLevel, type Setting, type SettingName, type SettingValues, type StorageKind } from './settings.js';

export { ConfigError } from './config-error.js';
export { LOG_LEVELS, STORAGE_KINDS, type LogLevel, type StorageKind } from './settings.js';

/** Everything the server can be told at start-up, as typed values. */
export interface ServerConfig {
  readonly port: number;
  readonly host: string;
  readonly basePath: string;
  /** From PLANT_STORE_TOKENS; undefined when none is given there. */
  readonly tokens: readonly StaticToken[] | undefined;
  /** A file with one token per line; read when the server is built. */
  readonly tokensFile: string | undefined;
  /** Where plants are kept: disk (the default), memory, or mongodb (implied by a MongoDB URI). */
  readonly storage: StorageKind;
  /** The disk storage's directory (used when storage is disk). */
  readonly dataDir: string;
  readonly mongodbUri: string | undefined;
  readonly mongodbDb: string | undefined;
  readonly logLevel: LogLevel;
  /** Requests per second per token, sustained; undefined when rate limiting is off. */
  readonly rateLimit: RateLimitConfig | undefined;
  /** Failed authentications per minute per client address; undefined when off. */
  readonly authFailureLimit: number | undefined;
  readonly bodyLimitBytes: number;
  readonly storageTimeoutMs: number;
  /** Longest time a client may take to send its headers, and its whole request. */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly shutdownGraceMs: number;
  /** Origins allowed by CORS; empty means CORS is off. */
  readonly corsOrigins: readonly string[];
  /** The identity provider whose JWTs are accepted; undefined when none. */
  readonly jwt: JwtConfig | undefined;
  /** Where changes are delivered as signed webhooks; undefined when no URL is set. */
  readonly webhooks: WebhookOptions | undefined;
}

export interface RateLimitConfig {
  readonly perSecond: number;
  readonly burst: number;
}

/** A configuration, or every problem found in it (each one line for the operator). */
export type ConfigResult = { readonly ok: true; readonly config: ServerConfig } | { readonly ok: false; readonly problems: readonly string[] };


/**
 * Flags and environment to a typed configuration. Pure: reads nothing but its arguments
 * (the tokens file is read when the server is built). A flag wins over its variable; an
 * empty variable counts as unset.
 */
export function parseConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): ConfigResult {
  const flags = readFlags(argv);
  if (typeof flags === 'string') return { ok: false, problems: [flags] };
  const problems: string[] = [];
  const values = {} as { [K in SettingName]: unknown };
  for (const [name, setting] of Object.entries(settings) as [SettingName, Setting<unknown>][]) {
    const fromFlag = setting.flag ? flags[setting.flag] : undefined;
    const fromEnv = env[setting.env];
    const raw = typeof fromFlag === 'string' ? fromFlag : fromEnv !== undefined && fromEnv !== '' ? fromEnv : setting.default;
    try {
      values[name] = setting.parse(raw);
    } catch (error) {
      if (error instanceof ValidationError) problems.push(`${labelOf(setting)} ${error.errors[0]}, got "${raw}"`);
      else if (error instanceof ConfigError) problems.push(`${labelOf(setting)}: ${error.message}`);
      else throw error;
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  const v = values as SettingValues;
  // Settings judged together.
  const jwt = jwtFrom(v, (name) => labelOf(settings[name]));
  const storage = storageKind(v.storage, v.mongodbUri);
  const timeouts =
    v.headersTimeout > v.requestTimeout
      ? `${labelOf(settings.headersTimeout)} (${v.headersTimeout}) must not exceed ${labelOf(settings.requestTimeout)} (${v.requestTimeout})`
      : undefined;
  const webhooks = webhooksFrom(v, (name) => labelOf(settings[name]));
  const together = [typeof jwt === 'string' ? jwt : undefined, storage.problem, timeouts, typeof webhooks === 'string' ? webhooks : undefined].filter((problem) => problem !== undefined);
  if (together.length > 0) return { ok: false, problems: together };
  return {
    ok: true,
    config: {
      port: v.port,
      host: v.host,
      basePath: v.basePath,
      tokens: v.tokens,
      tokensFile: v.tokensFile,
      storage: storage.kind!,
      dataDir: v.dataDir,
      mongodbUri: v.mongodbUri,
      mongodbDb: v.mongodbDb,
      logLevel: v.logLevel,
      rateLimit: v.rateLimit === undefined ? undefined : { perSecond: v.rateLimit, burst: v.rateBurst },
      authFailureLimit: v.authFailureLimit,
      bodyLimitBytes: v.bodyLimit,
      storageTimeoutMs: v.storageTimeout,
      headersTimeoutMs: v.headersTimeout,
      requestTimeoutMs: v.requestTimeout,
      shutdownGraceMs: v.shutdownGrace,
      corsOrigins: v.corsOrigins,
      jwt: jwt as Exclude<typeof jwt, string>,
      webhooks: webhooks as Exclude<typeof webhooks, string>,
    },
  };
}

/** parseConfig for callers that stop at the first refusal: throws ConfigError naming every problem. */
export function configFrom(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): ServerConfig {
  const result = parseConfig(argv, env);
  if (!result.ok) throw new ConfigError(result.problems.join('; '));
  return result.config;
}

/** The --help text, generated from the settings table so it cannot drift from it. */
export function helpText(): string {
  const rows = Object.values(settings).map((s: Setting<unknown>) => {
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
    `  ${'--version'.padEnd(31)}${''.padEnd(33)}print the version and exit`,
    `  ${'--help'.padEnd(31)}${''.padEnd(33)}print this and exit`,
  ].join('\n');
}

/** What the command line asks for before any configuration is read. */
export function commandOf(argv: readonly string[]): 'help' | 'version' | 'serve' {
  if (argv.includes('--help') || argv.includes('-h')) return 'help';
  if (argv.includes('--version')) return 'version';
  return 'serve';
}

function readFlags(argv: readonly string[]): Record<string, string | boolean | undefined> | string {
  const options = Object.fromEntries(
    Object.values(settings)
      .filter((s: Setting<unknown>) => s.flag !== '')
      .map((s: Setting<unknown>) => [s.flag, { type: 'string' as const }]),
  );
  try {
    return parseArgs({ args: [...argv], options: { ...options, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' } }, strict: true }).values;
  } catch (error) {
    // Node's own hint spans lines ("…use '--rate-limit=-XYZ'"): keep all of it, on one line.
    return `${(error as Error).message.replace(/\s*\n\s*/g, ' ')} (see --help)`;
  }
}

/** The storage the settings select: as given, else mongodb with a URI, else disk; or why they disagree. */
function storageKind(given: string | undefined, mongodbUri: string | undefined): { kind?: StorageKind; problem?: string } {
  const storage = labelOf(settings.storage);
  const uri = labelOf(settings.mongodbUri);
  if (given === undefined) return { kind: mongodbUri ? 'mongodb' : 'disk' };
  if (given === 'mongodb' && !mongodbUri) return { problem: `${storage} is mongodb but no ${uri} is set` };
  if (given !== 'mongodb' && mongodbUri) return { problem: `${storage} is ${given} but ${uri} is set; unset one of them` };
  return { kind: given as StorageKind };
}

function labelOf(setting: Setting<unknown>): string {
  return setting.flag ? `--${setting.flag} / ${setting.env}` : setting.env;
}
