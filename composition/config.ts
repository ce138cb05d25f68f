import { readFileSync } from 'node:fs';

/** Server settings, read from the environment (the CLI maps its flags onto the same names). */
export interface ServerConfig {
  readonly port: number;
  readonly host: string;
  readonly basePath: string;
  /** Undefined when none is configured: the server then generates one for its lifetime. */
  readonly tokens: readonly string[] | undefined;
  readonly bodyLimitBytes: number;
}

/** A configuration value the server cannot start with; its message is one line for the operator. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export const BODY_LIMIT_BYTES = 16 * 1024;
export const MIN_TOKEN_LENGTH = 16;
// RFC 6750 b64token: what may follow "Bearer " in the header.
const tokenSyntax = /^[A-Za-z0-9\-._~+/]+=*$/;

export function readConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  return {
    port: readPort(env['PORT']),
    host: readHost(env['HOST']),
    basePath: readBasePath(env['PLANT_STORE_BASE_PATH']),
    tokens: readTokens(env['PLANT_STORE_TOKENS'], env['PLANT_STORE_TOKENS_FILE']),
    bodyLimitBytes: BODY_LIMIT_BYTES,
  };
}

function readPort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 3000;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535, got "${raw}"`);
  }
  return Number(raw);
}

function readHost(raw: string | undefined): string {
  if (raw === undefined || raw === '') return '127.0.0.1';
  if (/\s/.test(raw)) throw new ConfigError(`HOST must be a host name or address, got "${raw}"`);
  return raw;
}

function readBasePath(raw: string | undefined): string {
  if (raw === undefined || raw === '' || raw === '/') return '';
  if (!/^(\/[A-Za-z0-9\-._~]+)+$/.test(raw)) {
    throw new ConfigError(`PLANT_STORE_BASE_PATH must look like /v1 (segments of letters, digits, - . _ ~; no trailing slash), got "${raw}"`);
  }
  return raw;
}

function readTokens(list: string | undefined, file: string | undefined): string[] | undefined {
  const tokens: string[] = [];
  if (list !== undefined && list.trim() !== '') tokens.push(...list.split(','));
  if (file !== undefined && file !== '') tokens.push(...readTokenFile(file));
  if (tokens.length === 0) return undefined;
  return tokens.map((token, index) => checkToken(token.trim(), index + 1));
}

function readTokenFile(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`PLANT_STORE_TOKENS_FILE cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): ${path}`);
  }
  // One token per line; blank lines and # comments are skipped.
  const tokens = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
  if (tokens.length === 0) throw new ConfigError(`PLANT_STORE_TOKENS_FILE holds no token: ${path}`);
  return tokens;
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
