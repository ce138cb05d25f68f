import {
  CreatePlant,
  DeletePlant,
  DeliverDue,
  GetPlant,
  leaseMsFor,
  ListPlants,
  Subscriptions,
  type DeliveryOutbox,
  type DeliveryState,
  type NewPlant,
  type PageQuery,
  type PlantEventType,
  type PlantRepository,
} from '../../core/index.js';
import { WebhookSender } from '../../adapters/webhooks/webhook-sender.js';
import { ManualClock } from './manual-clock.js';
import { recordingLog } from './recording-log.js';
import { TEST_WEBHOOK_SECRET } from './webhook-receiver.js';

export interface ManualDeliveryOptions {
  /** A storage and its outbox. */
  readonly repository: PlantRepository & { readonly outbox: DeliveryOutbox };
  readonly endpoints: readonly string[];
  /** Default: creations only, as the server's. */
  readonly events?: readonly PlantEventType[];
  readonly retrySchedule: readonly number[];
  /** Per attempt; default 1000. */
  readonly timeoutMs?: number;
  /** Endpoints on non-public addresses allowed (the receiver is on loopback); default true. */
  readonly allowPrivate?: boolean;
  /** Default: a clock of its own, starting at the real time. */
  readonly clock?: ManualClock;
}

/**
 * The use cases and the core's delivery engine on one storage, wired as the server wires
 * them (the real signed sender, to a real endpoint), but on a clock the test moves and with
 * each round of delivery run when the test says: a retry falls due when the test has moved
 * the clock past its delay, not after a wait.
 */
export class ManualDelivery {
  readonly clock: ManualClock;
  readonly log = recordingLog();
  readonly outbox: DeliveryOutbox;
  private readonly sender: WebhookSender;
  private readonly engine: DeliverDue;
  private readonly useCases: { create: CreatePlant; delete: DeletePlant; get: GetPlant; list: ListPlants };

  constructor(options: ManualDeliveryOptions) {
    const { repository, endpoints, retrySchedule, timeoutMs = 1_000 } = options;
    this.clock = options.clock ?? new ManualClock();
    this.outbox = repository.outbox;
    const subscriptions = new Subscriptions(endpoints, options.events ?? ['plant.created'], () => this.clock.now());
    const events = { publish: () => {} };
    this.useCases = {
      create: new CreatePlant(repository, events, subscriptions),
      delete: new DeletePlant(repository, events, subscriptions),
      get: new GetPlant(repository),
      list: new ListPlants(repository),
    };
    this.sender = new WebhookSender({ secret: TEST_WEBHOOK_SECRET, timeoutMs, allowPrivate: options.allowPrivate ?? true, userAgent: 'plant-store-test' });
    this.engine = new DeliverDue({
      outbox: this.outbox,
      transport: this.sender,
      clock: this.clock,
      log: this.log,
      endpoints,
      retrySchedule,
      leaseMs: leaseMsFor(timeoutMs, 5_000),
      batchSize: 128,
      settleConcurrency: 16,
    });
  }

  create(plant: NewPlant): Promise<unknown> {
    return this.useCases.create.execute(plant);
  }

  delete(id: number): Promise<void> {
    return this.useCases.delete.execute(id);
  }

  get(id: number) {
    return this.useCases.get.execute(id);
  }

  list(query?: PageQuery) {
    return this.useCases.list.execute(query);
  }

  /** One round of delivery now; answers how many plants it claimed. */
  round(): Promise<number> {
    return this.engine.execute();
  }

  /** Moves the clock on by `ms`, then runs a round. */
  after(ms: number): Promise<number> {
    this.clock.advance(ms);
    return this.round();
  }

  /** Runs rounds, without moving the clock, until one finds nothing due. */
  async drain(): Promise<void> {
    for (let round = 0; round < 100; round++) if ((await this.round()) === 0) return;
    throw new Error('still claiming after 100 rounds');
  }

  state(): Promise<DeliveryState> {
    return this.outbox.state();
  }

  retryFailed(): Promise<number> {
    return this.outbox.retryFailed(this.clock.now());
  }

  /** Log lines with this message (or matching it). */
  logged(message: string | RegExp) {
    return this.log.lines.filter((line) => (typeof message === 'string' ? line.message === message : message.test(line.message)));
  }

  close(): void {
    this.sender.close();
  }
}
