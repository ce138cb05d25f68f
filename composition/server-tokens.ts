import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { StaticToken } from '../adapters/auth/static-token-rules.js';
import { ConfigError, type ServerConfig } from './config.js';
import { staticTokensFrom } from './static-tokens-config.js';
import { settings } from './settings.js';

export interface ServerTokens {
  readonly tokens: readonly StaticToken[];
  /** True when none was configured and one was made for this run. */
  readonly generated: boolean;
}

/**
 * The static tokens a configuration names (its variable and its file, together); with
 * neither those nor an identity provider, one random token for this run, so the first
 * start needs no set-up.
 */
export function serverTokens(config: ServerConfig): ServerTokens {
  const tokens = [...(config.tokens ?? []), ...(config.tokensFile === undefined ? [] : readTokenFile(config.tokensFile))];
  if (tokens.length > 0 || config.jwt !== undefined) return { tokens, generated: false };
  return { tokens: [{ token: randomBytes(32).toString('base64url') }], generated: true };
}

/** One entry per line (`<token>` or `<token> <scope>…`); blank lines and # comments are skipped. */
function readTokenFile(path: string): StaticToken[] {
  const label = `--${settings.tokensFile.flag} / ${settings.tokensFile.env}`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${label} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): ${path}`);
  }
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  if (lines.length === 0) throw new ConfigError(`${label} holds no token: ${path}`);
  try {
    return staticTokensFrom(lines);
  } catch (error) {
    // Positions count the file's tokens, not its lines; the message never holds a token.
    throw error instanceof ConfigError ? new ConfigError(`${label} (${path}): ${error.message}`) : error;
  }
}
