// The framework-free core: what a plant is, what may happen to one, and the ports it needs.
export * from './access.js';
export * from './error-codes.js';
export * from './plant.js';
export * from './plant-events.js';
export * from './plant-store-error.js';
export * from './plant-validation.js';
export * from './parameter-validation.js';
export type * from './ports/event-publisher.js';
export type * from './ports/plant-repository.js';
export type * from './ports/token-verifier.js';
export * from './use-cases/create-plant.js';
export * from './use-cases/delete-plant.js';
export * from './use-cases/get-plant.js';
export * from './use-cases/list-plants.js';
export type * from './use-cases/plant-use-cases.js';
