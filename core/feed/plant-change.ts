import type { PlantEvent } from '../plant-events.js';

/** A change as the feed hands it out: the event, and the cursor that resumes after it. */
export interface PlantChange {
  /** Opaque to clients: a stream's `id:`, and what `Last-Event-ID` gives back. */
  readonly cursor: string;
  readonly event: PlantEvent;
}
