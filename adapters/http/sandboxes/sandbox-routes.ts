import Router from '@koa/router';
import type { Middleware } from 'koa';
import { ErrorCode, PlantStoreError, type PlantOperation } from '../../../core/index.js';
import type { SelfServiceHttp } from '../app/http-module.js';
import { realm, type AuthState } from '../guards/bearer-auth.js';
import { TokenBuckets } from '../guards/token-buckets.js';

export const SIGN_UP_PATH = '/sandboxes';
export const OWN_SANDBOX_PATH = '/sandbox';

/**
 * Self-service sandboxes: anyone may sign up (no token; limited per client address), and a
 * sandbox's token may end it. Any body sent with a sign-up is ignored, never read.
 */
export function sandboxRoutes(selfService: SelfServiceHttp, basePath: string, guard: (operation: PlantOperation) => Middleware): Router<AuthState> {
  const router = new Router<AuthState>({ prefix: basePath, sensitive: true });
  const { signupsPerHour } = selfService;
  const signups = signupsPerHour === undefined ? undefined : new TokenBuckets(signupsPerHour / 3600, signupsPerHour);

  router.post(SIGN_UP_PATH, async (ctx) => {
    const answer = signups?.take(ctx.ip);
    if (answer !== undefined && !answer.allowed) {
      ctx.set('Retry-After', String(answer.retryAfterSeconds));
      throw new PlantStoreError(ErrorCode.RateLimited, `at most ${signupsPerHour} sandboxes an hour from one address; retry in ${answer.retryAfterSeconds} s`);
    }
    const created = await selfService.signUp();
    ctx.status = 201;
    ctx.body = { sandbox: created.sandbox, token: created.token, expiresAt: new Date(created.expiresAt).toISOString() };
  });

  router.delete(OWN_SANDBOX_PATH, guard('endSandbox'), async (ctx) => {
    const sandbox = ctx.state.principal.sandbox;
    // Only a self-service sandbox's token may end one: those carry its quota.
    if (sandbox == null || ctx.state.principal.maxPlants === undefined) {
      ctx.set('WWW-Authenticate', `${realm}, error="insufficient_scope"`);
      throw new PlantStoreError(ErrorCode.InsufficientScope, "only a self-service sandbox's token may end its sandbox");
    }
    await selfService.end(sandbox);
    ctx.status = 204;
  });
  return router;
}
