import { EventSource } from 'eventsource';
import { eventually } from './eventually.js';

/** An event as a feed client received it. */
export interface ReceivedEvent {
  readonly type: string;
  /** The `id:` of the event: its cursor. */
  readonly id: string;
  readonly data: any;
  /** When it arrived (performance.now()). */
  readonly arrivedAt: number;
}

const FEED_EVENTS = ['plant.created', 'plant.deleted', 'feed.reset'];

/**
 * A change feed client: the `eventsource` package (the WHATWG EventSource for Node), with
 * the bearer token in a header, collecting the events it receives. It reconnects by itself
 * as a browser's does (sending Last-Event-ID); `close()` ends it.
 */
export class FeedClient {
  readonly events: ReceivedEvent[] = [];
  /** Times the connection opened (a reconnect counts again). */
  opened = 0;
  private readonly source: EventSource;

  constructor(url: string, token: string | undefined, options: { lastEventId?: string; headers?: Record<string, string> } = {}) {
    this.source = new EventSource(url, {
      fetch: (input, init) =>
        fetch(input, {
          ...init,
          headers: {
            ...init.headers,
            ...(token !== undefined && { Authorization: `Bearer ${token}` }),
            // Only the first connection: a reconnect sends the last id the client received.
            ...(options.lastEventId !== undefined && this.opened === 0 && { 'Last-Event-ID': options.lastEventId }),
            ...options.headers,
          },
        }),
    });
    this.source.addEventListener('open', () => this.opened++);
    for (const type of FEED_EVENTS) this.source.addEventListener(type, (event) => this.events.push({ type, id: event.lastEventId, data: JSON.parse(event.data), arrivedAt: performance.now() }));
  }

  /** The plant events only (no resets). */
  get changes(): ReceivedEvent[] {
    return this.events.filter((event) => event.type !== 'feed.reset');
  }

  /** Resolves once the connection is open (its first message may not have arrived). */
  async open(): Promise<this> {
    await eventually(() => this.opened > 0, { what: 'the stream to open' });
    return this;
  }

  /** Resolves once `count` plant events have arrived. */
  async received(count: number, timeoutMs = 10_000): Promise<ReceivedEvent[]> {
    await eventually(() => this.changes.length >= count, { timeoutMs, what: `${count} events`, context: () => `${this.changes.length} received` });
    return this.changes;
  }

  close(): void {
    this.source.close();
  }
}
