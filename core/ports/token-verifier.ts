/**
 * Decides whether a bearer token is one of ours. Returns an opaque, loggable name for the
 * token's holder (never the token itself), or undefined for an unknown token.
 */
export interface TokenVerifier {
  verify(token: string): string | undefined;
}
