import type { PlantEvent } from '../plant-events.js';

/**
 * Tells the outside that something happened to a plant. Called after the change is stored;
 * must not throw — a failing subscriber never undoes or fails the change.
 */
export interface EventPublisher {
  publish(event: PlantEvent): void;
}
