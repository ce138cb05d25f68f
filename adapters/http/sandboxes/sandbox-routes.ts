import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { PlantOperation } from '../../../core/index.js';
import type { SelfServiceHttp } from '../app/http-module.js';
import type { AuthState } from '../guards/bearer-auth.js';
import { tooManyRequests } from '../guards/rate-limit.js';
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
    if (answer !== undefined && !answer.allowed) throw tooManyRequests(ctx, answer.retryAfterSeconds, `at most ${signupsPerHour} sandboxes an hour from one address`);
    const created = await selfService.signUp();
    ctx.status = 201;
    ctx.body = { sandbox: created.sandbox, token: created.token, expiresAt: new Date(created.expiresAt).toISOString() };
  });

  router.delete(OWN_SANDBOX_PATH, guard('endSandbox'), async (ctx) => {
    // The guard let only a self-service sandbox's token through (requireSandboxRole).
    await selfService.end(ctx.state.principal.sandbox!);
    ctx.status = 204;
  });
  return router;
}
