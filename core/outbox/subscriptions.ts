import { randomUUID } from 'node:crypto';
import type { PlantEvent } from '../plant-events.js';
import type { PendingDelivery } from './pending-delivery.js';

export type PlantEventType = PlantEvent['type'];

/**
 * Which endpoints get which events. A change's deliveries are made here, before the write,
 * so the storage records them in the same atomic write as the change.
 */
export class Subscriptions {
  private readonly types: ReadonlySet<PlantEventType>;

  constructor(
    readonly endpoints: readonly string[],
    types: readonly PlantEventType[],
    private readonly clock: () => number = Date.now,
    /** The trace id of the call making the change, if it has one (kept with its deliveries). */
    private readonly traceId: () => string | undefined = () => undefined,
  ) {
    this.types = new Set(types);
  }

  /** One delivery per endpoint subscribed to the event's type; none when nobody is. */
  deliveriesFor(event: PlantEvent): PendingDelivery[] {
    if (this.endpoints.length === 0 || !this.types.has(event.type)) return [];
    const now = this.clock();
    const traceId = this.traceId();
    return this.endpoints.map((endpoint) => ({
      id: `msg_${randomUUID().replaceAll('-', '')}`,
      endpoint,
      event,
      createdAt: now,
      attempts: 0,
      dueAt: now,
      ...(traceId !== undefined && { traceId }),
    }));
  }
}

/** Nobody subscribed: changes record no deliveries. */
export const NO_SUBSCRIPTIONS = new Subscriptions([], []);
