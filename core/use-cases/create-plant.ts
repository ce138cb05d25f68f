import { ErrorCode } from '../error-codes.js';
import type { Plant } from '../plant.js';
import { parseNewPlant } from '../plant-validation.js';
import { PlantStoreError } from '../plant-store-error.js';
import { NO_SUBSCRIPTIONS, type Subscriptions } from '../outbox/subscriptions.js';
import type { EventPublisher } from '../ports/event-publisher.js';
import type { PlantRepository } from '../ports/plant-repository.js';
import { plantCreated } from '../plant-events.js';
import { plantsIn } from '../sandbox.js';

/** What a create asks of self-service sandboxes (SelfServiceSandboxes): whether the one written to is still open. */
export interface OpenSandboxes {
  confirmOpen(name: string): Promise<void>;
}

export class CreatePlant {
  constructor(
    private readonly plants: PlantRepository,
    private readonly events: EventPublisher,
    private readonly subscriptions: Subscriptions = NO_SUBSCRIPTIONS,
    private readonly selfService?: OpenSandboxes,
  ) {}

  /** `sandbox`: whose plants it joins (the default sandbox when omitted); `maxPlants`: its quota, if it has one (40303). */
  async execute(input: unknown, sandbox?: string, maxPlants?: number): Promise<Plant> {
    const plant = parseNewPlant(input);
    const event = plantCreated(plant, sandbox);
    const deliveries = this.subscriptions.deliveriesFor(event);
    const plants = plantsIn(this.plants, sandbox);
    if (!(await (maxPlants === undefined ? plants.add(plant, deliveries) : plants.add(plant, deliveries, { maxPlants })))) {
      throw new PlantStoreError(ErrorCode.PlantExists, `a plant with id ${plant.id} already exists`);
    }
    // A quota is a self-service sandbox's: one ended while this was under way takes the plant with it (40102).
    if (maxPlants !== undefined && sandbox !== undefined) await this.selfService?.confirmOpen(sandbox);
    this.events.publish(event);
    return plant;
  }
}
