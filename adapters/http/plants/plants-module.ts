import type { HttpModuleFactory } from '../app/http-module.js';
import { plantPaths } from './plant-paths.js';
import { plantRoutes } from './plant-routes.js';

/** The plant collection: list, get, create, delete. */
export const plantsModule: HttpModuleFactory = ({ useCases, settings: { basePath, bodyLimitBytes }, guard }) => ({
  router: plantRoutes({ useCases, basePath, bodyLimitBytes, guard }),
  paths: plantPaths({ basePath, bodyLimitBytes }),
});
