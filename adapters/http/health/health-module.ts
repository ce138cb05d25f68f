import type { HttpModuleFactory } from '../app/http-module.js';
import { healthPaths } from './health-paths.js';
import { healthRoutes } from './health-routes.js';

/** Liveness and readiness, for operators and load balancers. */
export const healthModule: HttpModuleFactory = (context) => ({ router: healthRoutes(context.checkStorage), paths: healthPaths() });
