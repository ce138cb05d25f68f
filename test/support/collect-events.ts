import type { EventPublisher, PlantEvent } from '../../core/index.js';

/** A recording EventPublisher: what the core published, in order. */
export class CollectEvents implements EventPublisher {
  readonly events: PlantEvent[] = [];

  publish(event: PlantEvent): void {
    this.events.push(event);
  }
}
