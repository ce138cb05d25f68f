import type { Context, Middleware } from 'koa';
import type { PlantOperation, TokenVerifier } from '../../../core/index.js';
import { bearerAuth } from './bearer-auth.js';
import { authFailureLimit, tokenRateLimit } from './rate-limit.js';
import { scopeGuard } from './scope-guard.js';
import { TokenBuckets } from './token-buckets.js';
import type { Check } from './check.js';

export interface RouteGuardOptions {
  readonly tokenVerifier: TokenVerifier;
  /** Per-token token bucket; undefined turns it off. */
  readonly rateLimit?: { readonly perSecond: number; readonly burst: number } | undefined;
  /** Failed authentications per minute per client address; undefined turns it off. */
  readonly authFailuresPerMinute?: number | undefined;
}

/**
 * The checks before each operation, in order: failed-auth limit, token, scope, rate limit.
 * The limits are shared by every operation. Each operation gets one middleware that runs
 * them all: a check answered at once costs no promise and no step of Koa's chain.
 */
export function routeGuard(options: RouteGuardOptions): (operation: PlantOperation) => Middleware {
  const before: Check[] = [];
  const after: Check[] = [];
  let onFailure: ((ctx: Context) => void) | undefined;
  if (options.authFailuresPerMinute !== undefined) {
    const perMinute = options.authFailuresPerMinute;
    const failures = authFailureLimit(new TokenBuckets(perMinute / 60, Math.max(1, Math.round(perMinute))));
    before.push(failures.gate);
    onFailure = failures.recordFailure;
  }
  before.push(bearerAuth(options.tokenVerifier, onFailure));
  if (options.rateLimit !== undefined) after.push(tokenRateLimit(new TokenBuckets(options.rateLimit.perSecond, options.rateLimit.burst)));
  return (operation) => {
    const checks = [...before, scopeGuard(operation), ...after];
    return (ctx, next) => runChecks(checks, 0, ctx, next);
  };
}

function runChecks(checks: readonly Check[], from: number, ctx: Context, next: () => Promise<unknown>): Promise<unknown> {
  for (let i = from; i < checks.length; i++) {
    const waiting = checks[i]!(ctx);
    if (waiting !== undefined) return waiting.then(() => runChecks(checks, i + 1, ctx, next));
  }
  return next();
}
