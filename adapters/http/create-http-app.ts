import Koa from 'koa';
import { errorMiddleware, type UnexpectedErrorReporter } from './error-middleware.js';
import { operationalRoutes } from './operational-routes.js';
import { plantRoutes, type PlantRoutesOptions } from './plant-routes.js';

export interface HttpAppOptions extends PlantRoutesOptions {
  /** Resolves when storage answers, rejects (as 50301) when it does not. */
  readonly checkStorage: () => Promise<void>;
  readonly reportUnexpected: UnexpectedErrorReporter;
}

/** The Koa application: error mapping outermost, then operational and plant routes. */
export function createHttpApp(options: HttpAppOptions): Koa {
  const app = new Koa();
  const plants = plantRoutes(options);
  const operations = operationalRoutes(options.checkStorage);
  app.use(errorMiddleware(options.reportUnexpected));
  app.use(operations.routes());
  app.use(plants.routes());
  app.use(plants.allowedMethods());
  app.use(operations.allowedMethods());
  return app;
}
