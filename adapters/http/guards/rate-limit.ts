import type { Context } from 'koa';
import { ErrorCode, PlantStoreError } from '../../../core/index.js';
import type { TokenBuckets } from './token-buckets.js';
import type { Check } from './check.js';

/** A 429 refusal with its Retry-After, for every limit the HTTP API keeps. */
export function tooManyRequests(ctx: Context, retryAfterSeconds: number, what: string): PlantStoreError {
  ctx.set('Retry-After', String(retryAfterSeconds));
  return new PlantStoreError(ErrorCode.RateLimited, `${what}; retry in ${retryAfterSeconds} s`);
}

/**
 * Per-token limit, after authentication (a route-guard Check). Every answer says where the
 * caller stands (RateLimit-* fields of the IETF httpapi draft); a refusal is 429 with Retry-After.
 */
export function tokenRateLimit(buckets: TokenBuckets): Check {
  return (ctx) => {
    const answer = buckets.take((ctx.state as { tokenHolder: string }).tokenHolder);
    ctx.set('RateLimit-Limit', String(buckets.burst));
    ctx.set('RateLimit-Remaining', String(answer.remaining));
    ctx.set('RateLimit-Reset', String(answer.resetSeconds));
    if (!answer.allowed) throw tooManyRequests(ctx, answer.retryAfterSeconds, 'too many requests for this token');
  };
}

/**
 * Per-address limit on failed authentication, so guessing tokens is slow. While an
 * address has used up its failures, its requests are refused before any token is checked:
 * a guess then learns nothing, not even whether it was right. The gate is a route-guard Check.
 */
export function authFailureLimit(buckets: TokenBuckets): { gate: Check; recordFailure: (ctx: Context) => void } {
  // The peer's address: the server trusts no forwarding header (app.proxy is off), so this
  // is ctx.ip without Koa building it on every request.
  const address = (ctx: Context) => ctx.req.socket.remoteAddress ?? '';
  return {
    gate: (ctx) => {
      // Nothing has failed lately (the usual case): no address to look up.
      if (buckets.size === 0) return;
      const key = address(ctx);
      if (buckets.isEmpty(key)) {
        const answer = buckets.take(key);
        throw tooManyRequests(ctx, answer.retryAfterSeconds, 'too many failed authentications from this address');
      }
    },
    recordFailure: (ctx) => {
      buckets.take(address(ctx));
    },
  };
}
