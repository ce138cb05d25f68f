import type { HttpModuleFactory } from '../app/http-module.js';
import { docsPaths } from './docs-paths.js';
import { docsRoutes } from './docs-routes.js';

/** The OpenAPI document and the Swagger UI page. */
export const docsModule: HttpModuleFactory = (context) => ({ router: docsRoutes(context.openApiDocument, context.version), paths: docsPaths() });
