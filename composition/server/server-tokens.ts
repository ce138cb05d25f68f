import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { StaticToken } from '../../adapters/auth/static-token-rules.js';
import type { AccessOptions } from '../config/access-settings.js';
import { ConfigError } from '../config/config-error.js';
import { labelOf } from '../config/setting.js';
import { settings } from '../config/settings.js';
import { staticTokensFrom } from '../config/static-tokens.js';

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
export function serverTokens(access: AccessOptions): ServerTokens {
  const tokens = [...(access.tokens ?? []), ...(access.tokensFile === undefined ? [] : readTokenFile(access.tokensFile))];
  if (tokens.length > 0 || access.jwt !== undefined) return { tokens, generated: false };
  return { tokens: [{ token: randomBytes(32).toString('base64url') }], generated: true };
}

/** One entry per line (`<token>` or `<token> <scope>…`); blank lines and # comments are skipped. */
function readTokenFile(path: string): StaticToken[] {
  const label = labelOf(settings.tokensFile);
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
