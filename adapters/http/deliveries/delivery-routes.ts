import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { PlantOperation } from '../../../core/index.js';
import type { AuthState } from '../guards/bearer-auth.js';
import type { WebhookDeliveries } from '../app/http-module.js';

export const DELIVERIES_PATH = '/webhooks/deliveries';

/**
 * Operators' view of webhook delivery, under the base path and behind the same token checks
 * as the plants. A token sees its own sandbox's deliveries only. Retrying is an operator's
 * act across every sandbox (it also forgets endpoints marked gone): tokens of a named
 * sandbox may not.
 */
export function deliveryRoutes(deliveries: WebhookDeliveries, basePath: string, guard: (operation: PlantOperation) => Middleware): Router<AuthState> {
  const router = new Router<AuthState>({ prefix: basePath, sensitive: true });
  router.get(DELIVERIES_PATH, guard('readDeliveries'), async (ctx) => {
    ctx.body = await deliveries.state(ctx.state.principal.sandbox ?? undefined);
  });
  router.post(`${DELIVERIES_PATH}/retry`, guard('retryDeliveries'), async (ctx) => {
    ctx.body = { retried: await deliveries.retryFailed() };
  });
  return router;
}
