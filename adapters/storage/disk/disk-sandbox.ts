import type { Database, RootDatabase } from 'lmdb';
import { MAX_PLANT_ID, type OutboxRecord, type PageRequest, type PendingDelivery, type Plant, type PlantRepository } from '../../../core/index.js';
import { namedPlantKey, type DiskDeliveryOutbox, type PlantKey, type SandboxPlantKey } from './disk-delivery-outbox.js';
import { mergeById } from './merge-by-id.js';
import { toPlant, toStored, type StoredPlant } from './stored-plant.js';

export type { SandboxPlantKey } from './disk-delivery-outbox.js';
export type SandboxTagKey = [sandbox: string, tag: string, id: number];

/** What a named sandbox's view shares with the environment's repository (DiskPlantRepository). */
export interface SandboxHost {
  readonly root: RootDatabase;
  /** Undefined only in a read-only open of a directory written before sandboxes: no sandbox has plants there. */
  readonly plants: Database<StoredPlant, SandboxPlantKey> | undefined;
  readonly byTag: Database<string, SandboxTagKey> | undefined;
  readonly outbox: DiskDeliveryOutbox;
  /** A synchronous read, failing as StorageUnavailable (after close too). */
  read<T>(read: () => T): T;
  /** A write, answered once on disk. */
  write<T>(start: () => Promise<T>): Promise<T>;
  /** A write that may record deliveries under `key`, noted in the outbox's index once on disk. */
  writeWithDeliveries(key: PlantKey, recorded: () => OutboxRecord | undefined, start: () => Promise<boolean>): Promise<boolean>;
  ping(): Promise<void>;
}

/**
 * The plants of one named sandbox, in the environment's databases for named sandboxes:
 * `sandbox-plants` keyed `[sandbox, id]` and `sandbox-plants-by-tag` keyed
 * `[sandbox, tag, id]` (their outbox records in `sandbox-outbox`, keyed `[sandbox, id]`).
 * Three databases however many sandboxes there are (LMDB's named databases are few and
 * fixed at open). The default sandbox's databases hold no such key, so its pages never meet
 * one.
 *
 * Why a sandbox's range holds its plants only, in id order (ordered-binary, which LMDB
 * compares bytewise): `[name, id]` is the name's bytes, a 0 byte, then the id as 9 bytes of
 * a double whose big-endian order is the numbers' order. A name of the rule ([a-z0-9-]) is
 * written as its ASCII bytes, all above 0x2c, with no escape, so `name 0x00` begins this
 * sandbox's keys and no other's: a longer name sharing the prefix has a byte above 0 there.
 * Within the sandbox every key has that same prefix and a fixed-length id, so the order is
 * the ids'. The tag index puts the tag between, so behind a sandbox's prefix its tags are
 * ordered as the default's index (`[tag, id]`) orders them. Each range is one cursor seek
 * and at most `limit` steps: O(limit + log N), whatever the other sandboxes hold.
 */
export class DiskSandbox implements PlantRepository {
  /** The deliveries recorded with the changes: the environment's one outbox. */
  readonly outbox: DiskDeliveryOutbox;

  constructor(
    private readonly host: SandboxHost,
    readonly name: string,
  ) {
    this.outbox = host.outbox;
  }

  async page({ after = 0, limit, tags }: PageRequest): Promise<Plant[]> {
    if (limit <= 0) return [];
    const { plants, byTag } = this.host;
    const name = this.name;
    return this.host.read(() => {
      if (plants === undefined || byTag === undefined) return [];
      if (tags === undefined) {
        const page: Plant[] = [];
        for (const { key, value } of plants.getRange({ start: [name, after + 1], end: [name, MAX_PLANT_ID + 1], limit })) page.push(toPlant(key[1], value));
        return page;
      }
      // A plant has at most one tag, so the per-tag ranges are disjoint: merge them by id.
      const ranges = [...new Set(tags)].map((tag) =>
        byTag
          .getRange({ start: [name, tag, after + 1], end: [name, tag, MAX_PLANT_ID + 1], limit })
          .map(({ key, value }): Plant => ({ id: key[2], name: value, tag })),
      );
      return mergeById(ranges, limit);
    });
  }

  async findById(id: number): Promise<Plant | undefined> {
    const stored = this.host.read(() => this.host.plants?.get([this.name, id]));
    return stored && toPlant(id, stored);
  }

  async add(plant: Plant, deliveries: readonly PendingDelivery[] = []): Promise<boolean> {
    const { root, outbox } = this.host;
    const [plants, byTag] = this.writable();
    const name = this.name;
    const stored = toStored(plant);
    const key: SandboxPlantKey = [name, plant.id];
    if (deliveries.length > 0) {
      // The plant and its deliveries in one transaction: one commit, both or neither.
      let recorded: OutboxRecord | undefined;
      return this.host.writeWithDeliveries(namedPlantKey(name, plant.id), () => recorded, () =>
        root.transaction(() => {
          if (plants.doesExist(key)) return false;
          void plants.put(key, stored);
          if (stored.tag !== undefined) void byTag.put([name, stored.tag, plant.id], stored.name);
          recorded = outbox.recordInSandbox(name, plant.id, deliveries);
          return true;
        }),
      );
    }
    // The existence check runs inside the write transaction: atomic, however many race.
    return this.host.write(() =>
      plants.ifNoExists(key, () => {
        void plants.put(key, stored);
        if (stored.tag !== undefined) void byTag.put([name, stored.tag, plant.id], stored.name);
      }),
    );
  }

  async addMany(list: readonly Plant[]): Promise<boolean[]> {
    const [plants, byTag] = this.writable();
    const name = this.name;
    // One transaction: reads inside it see its own earlier puts, so a repeated id is refused too.
    return this.host.write(() =>
      this.host.root.transaction(() =>
        list.map((plant) => {
          const key: SandboxPlantKey = [name, plant.id];
          if (plants.doesExist(key)) return false;
          const stored = toStored(plant);
          void plants.put(key, stored);
          if (stored.tag !== undefined) void byTag.put([name, stored.tag, plant.id], stored.name);
          return true;
        }),
      ),
    );
  }

  async remove(id: number, deliveries: readonly PendingDelivery[] = []): Promise<boolean> {
    const { root, outbox } = this.host;
    const [plants, byTag] = this.writable();
    const name = this.name;
    const key: SandboxPlantKey = [name, id];
    // Runs inside the write transaction, so the tag read is the one removed.
    let recorded: OutboxRecord | undefined;
    return this.host.writeWithDeliveries(namedPlantKey(name, id), () => recorded, () =>
      root.transaction(() => {
        const stored = plants.get(key);
        if (stored === undefined) return false;
        void plants.remove(key);
        if (stored.tag !== undefined && stored.tag !== null) void byTag.remove([name, stored.tag, id]);
        recorded = outbox.recordInSandbox(name, id, deliveries);
        return true;
      }),
    );
  }

  ping(): Promise<void> {
    return this.host.ping();
  }

  /** The databases a write needs; missing only in a read-only open, where writes fail as storage unavailable. */
  private writable(): [Database<StoredPlant, SandboxPlantKey>, Database<string, SandboxTagKey>] {
    const { plants, byTag } = this.host;
    if (plants === undefined || byTag === undefined) return this.host.read(() => {
      throw new Error('the disk storage is open for reading only');
    });
    return [plants, byTag];
  }
}
