import type { EventPublisher, PlantEvent } from '../../core/index.js';

export type PlantEventListener = (event: PlantEvent) => void | Promise<void>;
export type ListenerErrorReporter = (error: unknown, event: PlantEvent) => void;

/**
 * Delivers events to in-process subscribers, synchronously and in subscription order, so
 * that when a create or delete resolves every listener has been called. A listener that
 * throws or rejects is reported and never affects the change or the other listeners.
 */
export class InProcessEventBus implements EventPublisher {
  private readonly listeners = new Set<PlantEventListener>();

  constructor(private readonly reportListenerError: ListenerErrorReporter) {}

  /** Returns the function that unsubscribes. */
  subscribe(listener: PlantEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(event: PlantEvent): void {
    if (this.listeners.size === 0) return;
    // Listeners share one event: freeze it so none can change what the others (or the
    // caller, who holds the same plant) see.
    const frozen = Object.freeze({ ...event, data: Object.freeze({ ...event.data }) }) as PlantEvent;
    for (const listener of [...this.listeners]) {
      try {
        const result = listener(frozen);
        if (result instanceof Promise) result.catch((error) => this.reportListenerError(error, frozen));
      } catch (error) {
        this.reportListenerError(error, frozen);
      }
    }
  }
}
