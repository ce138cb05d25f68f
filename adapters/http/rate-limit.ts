import type { Context, Middleware } from 'koa';
import { ErrorCode, PlantStoreError } from '../../core/index.js';
import type { TokenBuckets } from './token-buckets.js';

function tooManyRequests(ctx: Context, retryAfterSeconds: number, what: string): PlantStoreError {
  ctx.set('Retry-After', String(retryAfterSeconds));
  return new PlantStoreError(ErrorCode.RateLimited, `${what}; retry in ${retryAfterSeconds} s`);
}

/**
 * Per-token limit, after authentication. Every answer says where the caller stands
 * (RateLimit-* fields of the IETF httpapi draft); a refusal is 429 with Retry-After.
 */
export function tokenRateLimit(buckets: TokenBuckets): Middleware<{ tokenHolder: string }> {
  return (ctx, next) => {
    const answer = buckets.take(ctx.state.tokenHolder);
    ctx.set('RateLimit-Limit', String(buckets.burst));
    ctx.set('RateLimit-Remaining', String(answer.remaining));
    ctx.set('RateLimit-Reset', String(answer.resetSeconds));
    if (!answer.allowed) throw tooManyRequests(ctx, answer.retryAfterSeconds, 'too many requests for this token');
    return next();
  };
}

/**
 * Per-address limit on failed authentication, so guessing tokens is slow. While an
 * address has used up its failures, its requests are refused before any token is checked:
 * a guess then learns nothing, not even whether it was right.
 */
export function authFailureLimit(buckets: TokenBuckets): { gate: Middleware; recordFailure: (ctx: Context) => void } {
  // The peer's address: the server trusts no forwarding header (app.proxy is off), so this
  // is ctx.ip without Koa building it on every request.
  const address = (ctx: Context) => ctx.req.socket.remoteAddress ?? '';
  return {
    gate: (ctx, next) => {
      // Nothing has failed lately (the usual case): no address to look up.
      if (buckets.size === 0) return next();
      const key = address(ctx);
      if (buckets.isEmpty(key)) {
        const answer = buckets.take(key);
        throw tooManyRequests(ctx, answer.retryAfterSeconds, 'too many failed authentications from this address');
      }
      return next();
    },
    recordFailure: (ctx) => {
      buckets.take(address(ctx));
    },
  };
}
