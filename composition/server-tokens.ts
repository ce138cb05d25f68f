import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError, type ServerConfig } from './config.js';
import { settings } from './settings.js';

export interface ServerTokens {
  readonly tokens: readonly string[];
  /** True when none was configured and one was made for this run. */
  readonly generated: boolean;
}

/**
 * The tokens a configuration names (its variable and its file, together), or one random
 * token for this run when it names none, so the first start needs no set-up.
 */
export function serverTokens(config: ServerConfig): ServerTokens {
  const tokens = [...(config.tokens ?? []), ...(config.tokensFile === undefined ? [] : readTokenFile(config.tokensFile))];
  if (tokens.length > 0) return { tokens, generated: false };
  return { tokens: [randomBytes(32).toString('base64url')], generated: true };
}

function readTokenFile(path: string): string[] {
  const label = `--${settings.tokensFile.flag} / ${settings.tokensFile.env}`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${label} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): ${path}`);
  }
  // One token per line; blank lines and # comments are skipped.
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  if (lines.length === 0) throw new ConfigError(`${label} holds no token: ${path}`);
  return lines;
}
