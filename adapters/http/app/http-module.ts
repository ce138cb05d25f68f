import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { DeliveryState, PlantOperation, PlantUseCases } from '../../../core/index.js';
import type { SelfServiceHttp } from './self-service-http.js';

export type { SelfServiceHttp } from './self-service-http.js';
import type { OpenApiDocument } from '../openapi/openapi-document.js';
import type { HttpConfig } from './http-settings.js';
import type { HttpMetrics } from './http-metrics.js';
import type { JsonSchema } from '../openapi/openapi-schemas.js';

/**
 * One feature of the HTTP API: its routes and their part of the OpenAPI document. The app
 * mounts the modules of its list in order and builds the document from their paths, so a
 * new feature is a module and a line in that list (http-modules.ts), nothing else.
 */
export interface HttpModule {
  readonly router: Router<any>;
  /** The OpenAPI paths of its routes, exactly as the router serves them. */
  readonly paths: Record<string, JsonSchema>;
}

/** Makes a module from what the app was given; undefined when the feature is off (no webhooks, say). */
export type HttpModuleFactory = (context: ModuleContext) => HttpModule | undefined;

/** What the app hands every module. */
export interface ModuleContext {
  /** Every HTTP setting, decided: a module's own setting is read here, with no plumbing. */
  readonly settings: HttpConfig;
  readonly useCases: PlantUseCases;
  /** The release serving the API. */
  readonly version: string;
  /** The checks before an operation: failed-auth limit, token, scope, rate limit (route-guard.ts). */
  readonly guard: (operation: PlantOperation) => Middleware;
  /** Resolves when storage answers, rejects (as 50301) when it does not. */
  readonly checkStorage: () => Promise<void>;
  /** The webhook delivery state and its retry; undefined when webhooks are not configured. */
  readonly webhookDeliveries: WebhookDeliveries | undefined;
  /** Self-service sandboxes; undefined while sign-up is off. */
  readonly selfService: SelfServiceHttp | undefined;
  /** Where requests are counted and what `/metrics` serves; undefined when metrics are off. */
  readonly metrics: HttpMetrics | undefined;
  /** Aborts when the server is closing: long-lived answers (change streams) end then. */
  readonly closing: AbortSignal;
  /** The whole OpenAPI document, every module's paths in it; built on first call. */
  readonly openApiDocument: () => OpenApiDocument;
}


/** What the delivery routes show and do: the store's webhook delivery state, and retrying failed ones. */
export interface WebhookDeliveries {
  /** Of one sandbox's plants (undefined: the default sandbox). */
  state(sandbox: string | undefined): Promise<DeliveryState & { readonly oldestPendingAgeMs?: number; readonly sandboxes?: number }>;
  retryFailed(): Promise<number>;
}
