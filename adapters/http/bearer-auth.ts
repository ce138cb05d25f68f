import type { Middleware } from 'koa';
import { ErrorCode, PlantStoreError, type TokenVerifier } from '../../core/index.js';

const realm = 'Bearer realm="plant-store"';
// RFC 6750 §2.1: the scheme is case-insensitive; the token is a b64token.
const bearerHeader = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** State this middleware leaves for later ones (rate limits, logs): never the token. */
export interface AuthState {
  tokenHolder: string;
}

/** Runs before anything reads the body, so an anonymous caller cannot make us parse it. */
export function bearerAuth(verifier: TokenVerifier): Middleware<AuthState> {
  return async (ctx, next) => {
    const header = ctx.get('Authorization');
    if (header === '') {
      ctx.set('WWW-Authenticate', realm);
      throw new PlantStoreError(ErrorCode.MissingToken, 'missing bearer token: send Authorization: Bearer <token>');
    }
    const token = bearerHeader.exec(header)?.[1];
    const holder = token === undefined ? undefined : verifier.verify(token);
    if (holder === undefined) {
      ctx.set('WWW-Authenticate', `${realm}, error="invalid_token"`);
      throw new PlantStoreError(ErrorCode.InvalidToken, 'the bearer token is malformed or unknown');
    }
    ctx.state.tokenHolder = holder;
    await next();
  };
}
