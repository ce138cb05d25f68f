import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { PlantOperation } from '../../../core/index.js';
import type { WebhookDeliveries } from '../app/http-module.js';

export const DELIVERIES_PATH = '/webhooks/deliveries';

/** Operators' view of webhook delivery, under the base path and behind the same token checks as the plants. */
export function deliveryRoutes(deliveries: WebhookDeliveries, basePath: string, guard: (operation: PlantOperation) => Middleware): Router {
  const router = new Router({ prefix: basePath, sensitive: true });
  router.get(DELIVERIES_PATH, guard('readDeliveries'), async (ctx) => {
    ctx.body = await deliveries.state();
  });
  router.post(`${DELIVERIES_PATH}/retry`, guard('retryDeliveries'), async (ctx) => {
    ctx.body = { retried: await deliveries.retryFailed() };
  });
  return router;
}
