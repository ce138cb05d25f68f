// The framework-free core: what a plant is, what may happen to one, and the ports it needs.
export * from './access.js';
export * from './error-codes.js';
export * from './plant.js';
export * from './plant-events.js';
export * from './plant-store-error.js';
export * from './sandbox.js';
export * from './sandboxes/sandbox-token.js';
export * from './sandboxes/self-service.js';
// Named: the modules also export their schemas and quick checks, for the tests that hold
// the two together, not for library users.
export { parseNewPlant } from './plant-validation.js';
export { DEFAULT_PAGE_LIMIT, isPageQueryObject, MAX_PAGE_LIMIT, MAX_TAG_FILTERS, parsePageQuery, parsePlantId, PLANT_ID_RULE, type PageQuery } from './parameter-validation.js';
export type * from './outbox/pending-delivery.js';
export * from './outbox/outbox-record.js';
export * from './outbox/subscriptions.js';
export * from './delivery/delivery-policy.js';
export * from './delivery/deliver-due.js';
export * from './feed/follow-changes.js';
export * from './feed/plant-change.js';
export type * from './ports/change-log.js';
export type * from './ports/clock.js';
export type * from './ports/delivery-metrics.js';
export type * from './ports/delivery-outbox.js';
export type * from './ports/event-publisher.js';
export type * from './ports/log.js';
export type * from './ports/plant-repository.js';
export type * from './ports/sandbox-registry.js';
export type * from './ports/token-verifier.js';
export type * from './ports/webhook-transport.js';
export * from './use-cases/create-plant.js';
export * from './use-cases/delete-plant.js';
export * from './use-cases/get-plant.js';
export * from './use-cases/list-plants.js';
export type * from './use-cases/plant-use-cases.js';
