import { parseTokenEntry, sandboxProblem, scopesProblem, tokenProblem, type StaticToken } from '../../adapters/auth/static-token-rules.js';
import type { Scope } from '../../core/index.js';
import { ConfigError } from './config-error.js';

/**
 * Configured token entries (`<token>` or `<token> <scope>…`) as static tokens, checked by
 * the static-token adapter's own rules. Errors name the entry's position, never the token.
 */
export function staticTokensFrom(entries: readonly string[]): StaticToken[] {
  return entries.map((entry, index) => {
    // In a list, an empty entry is a stray comma or a variable that expanded to nothing.
    if (entry.trim() === '') throw new ConfigError(`token #${index + 1} is empty (a comma too many, or a variable meant to fill it is unset)`);
    const { token, scopes, sandbox } = parseTokenEntry(entry);
    const problem = tokenProblem(token) ?? (scopes === undefined ? undefined : scopesProblem(scopes)) ?? sandboxProblem(sandbox);
    if (problem !== undefined) throw new ConfigError(`token #${index + 1} ${problem}`);
    return { token, ...(scopes !== undefined && { scopes: scopes as Scope[] }), ...(sandbox !== undefined && { sandbox }) };
  });
}
