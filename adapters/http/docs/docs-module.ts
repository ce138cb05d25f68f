import type { HttpModuleFactory } from '../app/http-module.js';
import { docsPaths } from './docs-paths.js';
import { docsRoutes } from './docs-routes.js';

/** The OpenAPI document and the Swagger UI page; off with the `docs` setting. */
export const docsModule: HttpModuleFactory = (context) =>
  context.settings.docs ? { router: docsRoutes(context.openApiDocument, context.version), paths: docsPaths() } : undefined;
