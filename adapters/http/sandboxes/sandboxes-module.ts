import type { HttpModuleFactory } from '../app/http-module.js';
import { sandboxPaths } from './sandbox-paths.js';
import { sandboxRoutes } from './sandbox-routes.js';

/** Self-service sandboxes: served only while sign-up is on (otherwise POST /sandboxes is 404). */
export const sandboxesModule: HttpModuleFactory = ({ selfService, settings: { basePath }, guard }) =>
  selfService && { router: sandboxRoutes(selfService, basePath, guard), paths: sandboxPaths(basePath) };
