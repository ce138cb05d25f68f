import { ALL_SCOPES, isScope, sandboxNameProblem, type Scope } from '../../core/index.js';

/** A token fixed by configuration, with the scopes it grants (both when none are named) and its sandbox (default when none). */
export interface StaticToken {
  readonly token: string;
  readonly scopes?: readonly Scope[];
  readonly sandbox?: string;
}

export const MIN_TOKEN_LENGTH = 16;

/** A configured token that could never be presented, is too easy to guess, or grants an unknown scope. */
export class UnusableTokenError extends Error {
  override readonly name = 'UnusableTokenError';
}

// RFC 6750 b64token: what may follow "Bearer " in the header.
const tokenSyntax = /^[A-Za-z0-9\-._~+/]+=*$/;

// Tokens usually come from a variable (`tokens: [process.env.X]`): unset or blank, say so, not "bad characters".
const unsetHint = 'is the variable that should hold it set?';

/**
 * Why a configured token cannot be used, as the end of a sentence that starts with the
 * token's position (never the token itself); undefined when it is fine. Takes anything:
 * JavaScript callers, and TypeScript ones reading the environment, can pass undefined.
 */
export function tokenProblem(token: unknown): string | undefined {
  if (token === undefined || token === null) return `is missing (${String(token)}) — ${unsetHint}`;
  if (typeof token !== 'string') return `is a ${typeof token}, not a string`;
  if (token === '') return `is empty — ${unsetHint}`;
  if (token.trim() === '') return `is blank (only whitespace) — ${unsetHint}`;
  if (!tokenSyntax.test(token)) return 'has characters a bearer token cannot carry (allowed: A-Z a-z 0-9 - . _ ~ + / and trailing =)';
  if (token.length < MIN_TOKEN_LENGTH) return `is shorter than ${MIN_TOKEN_LENGTH} characters; use a long random token`;
  return undefined;
}

/** Why a list of scopes cannot be granted; undefined when every one is known. */
export function scopesProblem(scopes: readonly string[]): string | undefined {
  const unknown = scopes.find((scope) => !isScope(scope));
  return unknown === undefined ? undefined : `names an unknown scope "${unknown}" (known: ${ALL_SCOPES.join(', ')})`;
}

/** A tokens-file line or list entry: `<token>` or `<token> <scope> <scope>…`, split on spaces. */
export function parseTokenEntry(entry: string): { token: string; scopes?: string[]; sandbox?: string } {
  const [token = '', ...words] = entry.trim().split(/\s+/);
  const sandboxes = words.filter((word) => word.startsWith(SANDBOX_PREFIX)).map((word) => word.slice(SANDBOX_PREFIX.length));
  const scopes = words.filter((word) => !word.startsWith(SANDBOX_PREFIX));
  return {
    token,
    ...(scopes.length > 0 && { scopes }),
    // Two sandbox words are kept as one unusable name, for sandboxProblem to refuse.
    ...(sandboxes.length > 0 && { sandbox: sandboxes.join(' ') }),
  };
}

/** How an entry names its token's sandbox: `<token> [scopes…] sandbox=<name>`. */
const SANDBOX_PREFIX = 'sandbox=';

/** Why a static token's sandbox cannot be used, as the end of a sentence; undefined when it is fine. */
export function sandboxProblem(sandbox: string | undefined): string | undefined {
  if (sandbox === undefined) return undefined;
  return sandboxNameProblem(sandbox) && `names a sandbox that cannot be one ("${sandbox}"): ${sandboxNameProblem(sandbox)}, once per token`;
}
