import type { HttpModuleFactory } from '../app/http-module.js';
import { deliveryPaths } from './delivery-paths.js';
import { deliveryRoutes } from './delivery-routes.js';

/** Operators' view of webhook delivery; served only when webhooks are configured. */
export const deliveriesModule: HttpModuleFactory = ({ webhookDeliveries, settings: { basePath }, guard }) =>
  webhookDeliveries && { router: deliveryRoutes(webhookDeliveries, basePath, guard), paths: deliveryPaths(basePath) };
