import type { Database, RootDatabase } from 'lmdb';
import {
  MAX_PLANT_ID,
  sandboxFull,
  type AddLimits,
  type ChangeLog,
  type OutboxRecord,
  type PageRequest,
  type PendingDelivery,
  type Plant,
  type PlantRepository,
} from '../../../core/index.js';
import { namedPlantKey, sandboxRange, type DiskDeliveryOutbox, type DroppedRecord, type PlantKey, type SandboxPlantKey } from './disk-delivery-outbox.js';
import type { DiskSandboxRegistry } from './disk-sandbox-registry.js';
import type { DiskChangeLog, RecordChange } from './disk-change-log.js';
import { mergeById } from './merge-by-id.js';
import { toPlant, toStored, type StoredPlant } from './stored-plant.js';
import { adoptEarlierDatabase } from './earlier-database.js';
import { tagPart, type TagPart } from './tag-key.js';
import { idOf } from './id-keys.js';

export type { SandboxPlantKey } from './disk-delivery-outbox.js';
/** A plant in the named sandboxes' tag index: its tag first (see DiskSandbox), then its sandbox and id. */
export type SandboxTagKey = [tag: string, sandbox: string, id: number] | [escaped: true, tag: string, sandbox: string, id: number];
const tagKey = (tag: string, sandbox: string, id: number) => [...tagPart(tag), sandbox, id] as SandboxTagKey;

/** The named sandboxes' tag index. */
export const SANDBOX_TAGS = 'sandbox-tags';
/** Where an earlier build kept it, sandbox first: `[sandbox, tag, id]`. */
const EARLIER_SANDBOX_TAGS = 'sandbox-plants-by-tag';
type EarlierTagKey = [sandbox: string, ...TagPart, id: number];

/** Moves an earlier build's tag index into `tags`, tag first, once (see adoptEarlierDatabase). */
export function adoptEarlierTagIndex(root: RootDatabase, tags: Database<string, SandboxTagKey>): void {
  adoptEarlierDatabase<string, EarlierTagKey>(root, EARLIER_SANDBOX_TAGS, (key, name) => {
    // The tag part is kept as written: `[tag]`, or `[true, escaped tag]` (tag-key.ts).
    const [sandbox, ...tag] = key.slice(0, -1);
    void tags.put([...tag, sandbox, key.at(-1)] as SandboxTagKey, name);
  });
}

/** What a named sandbox's view shares with the environment's repository (DiskPlantRepository). */
export interface SandboxHost {
  readonly root: RootDatabase;
  /** Undefined only in a read-only open of a directory written before sandboxes: no sandbox has plants there. */
  readonly plants: Database<StoredPlant, SandboxPlantKey> | undefined;
  readonly byTag: Database<string, SandboxTagKey> | undefined;
  /** Plants held, by sandbox (see DiskSandbox); undefined where `plants` is. */
  readonly counts: Database<number, string> | undefined;
  readonly outbox: DiskDeliveryOutbox;
  readonly sandboxes: DiskSandboxRegistry;
  /** Every sandbox's changes; absent in a read-only open. */
  readonly changeLog: DiskChangeLog | undefined;
  /** A write recording its changes in the change log (DiskChangeLog.writing). */
  recording<T>(write: (record: RecordChange) => Promise<T>): Promise<T>;
  /** A synchronous read, failing as StorageUnavailable (after close too). */
  read<T>(read: () => T): T;
  /** A write, answered once on disk. */
  write<T>(start: () => Promise<T>): Promise<T>;
  /** A write that may record deliveries under `key`, noted in the outbox's index once on disk. */
  writeWithDeliveries(key: PlantKey, recorded: () => OutboxRecord | undefined, start: () => Promise<boolean>): Promise<boolean>;
  /** A write that may change outbox records: `durable` runs once it is on disk; a failure makes the outbox read its records afresh. */
  writeNoting<T>(start: () => Promise<T>, durable: () => void): Promise<T>;
  ping(): Promise<void>;
}

/**
 * The plants of one named sandbox, in the environment's databases for named sandboxes:
 * `sandbox-plants` keyed `[sandbox, id]` and `sandbox-tags` keyed `[tag, sandbox, id]`
 * (their outbox records in `sandbox-outbox`, keyed `[sandbox, id]`,
 * and their number in `sandbox-plant-counts`, keyed by name). Four databases however many
 * sandboxes there are (LMDB's named databases are few and fixed at open). The default
 * sandbox's databases hold no such key, so its pages never meet one.
 *
 * Why a sandbox's range holds its plants only, in id order (ordered-binary, which LMDB
 * compares bytewise): `[name, id]` is the name's bytes, a 0 byte, then the id as 9 bytes of
 * a double whose big-endian order is the numbers' order. A name of the rule ([a-z0-9-]) is
 * written as its ASCII bytes, all above 0x2c, with no escape, so `name 0x00` begins this
 * sandbox's keys and no other's: a longer name sharing the prefix has a byte above 0 there.
 * Within the sandbox every key has that same prefix and a fixed-length id, so the order is
 * the ids'. The tag index puts the sandbox between the tag and the id of the default's index
 * (`[tag, id]`), so a sandbox's plants of one tag are one range there too. Tag first, not
 * sandbox first: a commit's creates of one tag in many sandboxes then share that tag's
 * leaves and branch pages, as the default sandbox's do, instead of touching branch pages
 * all over the index (LMDB copies each page a commit touches; measured in
 * docs/benchmarks.md, Sandboxes, "Tag first"). Each range is one cursor seek and at most
 * `limit` steps: O(limit + log N), whatever the other sandboxes hold.
 *
 * Quotas: every write of a sandbox's plants reads and writes its count inside its own
 * transaction. LMDB has one writer at a time, across every process on the environment (a
 * server's workers too), and lmdb-js runs transaction callbacks one after another, so an add bounded by
 * `maxPlants` sees every earlier add and remove: concurrent adds at the edge store exactly
 * that many. A count of 0 is not kept; an absent one (0, or a sandbox written before counts
 * were kept) is counted from the sandbox's range inside the transaction: a seek when empty.
 */
export class DiskSandbox implements PlantRepository {
  /** The deliveries recorded with the changes: the environment's one outbox. */
  readonly outbox: DiskDeliveryOutbox;
  /** This sandbox's changes, in the environment's change log. */
  readonly changes: ChangeLog | undefined;

  constructor(
    private readonly host: SandboxHost,
    readonly name: string,
  ) {
    this.outbox = host.outbox;
    this.changes = host.changeLog?.of(name);
  }

  async page({ after = 0, limit, tags }: PageRequest): Promise<Plant[]> {
    if (limit <= 0) return [];
    const { plants, byTag } = this.host;
    const name = this.name;
    return this.host.read(() => {
      if (plants === undefined || byTag === undefined) return [];
      if (tags === undefined) {
        const page: Plant[] = [];
        for (const { key, value } of plants.getRange({ start: [name, after + 1], end: [name, MAX_PLANT_ID + 1], limit })) page.push(toPlant(idOf(key), value));
        return page;
      }
      // A plant has at most one tag, so the per-tag ranges are disjoint: merge them by id.
      const ranges = [...new Set(tags)].map((tag) =>
        byTag
          .getRange({ start: tagKey(tag, name, after + 1), end: tagKey(tag, name, MAX_PLANT_ID + 1), limit })
          .map(({ key, value }): Plant => ({ id: idOf(key), name: value, tag })),
      );
      return mergeById(ranges, limit);
    });
  }

  async findById(id: number): Promise<Plant | undefined> {
    const stored = this.host.read(() => this.host.plants?.get([this.name, id]));
    return stored && toPlant(id, stored);
  }

  async add(plant: Plant, deliveries: readonly PendingDelivery[] = [], limits?: AddLimits): Promise<boolean> {
    const { root, outbox } = this.host;
    const [plants, byTag, counts] = this.writable();
    const name = this.name;
    const stored = toStored(plant);
    const key: SandboxPlantKey = [name, plant.id];
    const maxPlants = limits?.maxPlants;
    let full = false;
    // The plant, its count and its deliveries in one transaction: one commit, all or none.
    // The id is checked first: a taken id is a conflict even in a full sandbox.
    let recorded: OutboxRecord | undefined;
    const added = await this.host.recording((record) => this.host.writeWithDeliveries(namedPlantKey(name, plant.id), () => recorded, () =>
      root.transaction(() => {
        if (plants.doesExist(key)) return false;
        const count = this.countIn(plants, counts);
        // Decided before any write: lmdb-js keeps a callback's writes even when it throws.
        if (maxPlants !== undefined && count >= maxPlants) {
          full = true;
          return false;
        }
        void plants.put(key, stored);
        if (stored.tag !== undefined) void byTag.put(tagKey(stored.tag, name, plant.id), stored.name);
        this.setCount(counts, count + 1);
        recorded = outbox.recordInSandbox(name, plant.id, deliveries);
        record(name, { created: plant });
        return true;
      }),
    ));
    if (full) throw sandboxFull(maxPlants!);
    return added;
  }

  async addMany(list: readonly Plant[]): Promise<boolean[]> {
    const [plants, byTag, counts] = this.writable();
    const name = this.name;
    // One transaction: reads inside it see its own earlier puts, so a repeated id is refused too.
    // A bulk load records no change (PlantRepository.addMany).
    return this.host.write(() =>
      this.host.root.transaction(() => {
        let count = this.countIn(plants, counts);
        const added = list.map((plant) => {
          const key: SandboxPlantKey = [name, plant.id];
          if (plants.doesExist(key)) return false;
          const stored = toStored(plant);
          void plants.put(key, stored);
          if (stored.tag !== undefined) void byTag.put(tagKey(stored.tag, name, plant.id), stored.name);
          count++;
          return true;
        });
        this.setCount(counts, count);
        return added;
      }),
    );
  }

  async remove(id: number, deliveries: readonly PendingDelivery[] = []): Promise<boolean> {
    const { root, outbox } = this.host;
    const [plants, byTag, counts] = this.writable();
    const name = this.name;
    const key: SandboxPlantKey = [name, id];
    // Runs inside the write transaction, so the tag read is the one removed.
    let recorded: OutboxRecord | undefined;
    return this.host.recording((record) => this.host.writeWithDeliveries(namedPlantKey(name, id), () => recorded, () =>
      root.transaction(() => {
        const stored = plants.get(key);
        if (stored === undefined) return false;
        // Counted before the removal: an absent count is counted from the range as it is.
        const count = this.countIn(plants, counts);
        void plants.remove(key);
        if (stored.tag !== undefined && stored.tag !== null) void byTag.remove(tagKey(stored.tag, name, id));
        this.setCount(counts, count - 1);
        recorded = outbox.recordInSandbox(name, id, deliveries);
        record(name, { deleted: id });
        return true;
      }),
    ));
  }

  /**
   * Removes up to `limit` of this sandbox's plants (with their tags and count), then, with
   * what is left of `limit`, its outbox records (pending deliveries dropped): one transaction
   * of at most `limit` such removals. Answers how many; 0 once nothing is left.
   */
  async purge(limit: number): Promise<number> {
    if (!(limit > 0)) return 0;
    const { root, outbox } = this.host;
    const [plants, byTag, counts] = this.writable();
    const name = this.name;
    let dropped: DroppedRecord[] = [];
    return this.host.writeNoting(
      () =>
        root.transaction(() => {
          // Read whole before removing: the range is not walked while it changes.
          const gone = [...plants.getRange({ ...sandboxRange(name), limit })];
          if (gone.length > 0) {
            const count = this.countIn(plants, counts);
            for (const { key, value } of gone) {
              const id = idOf(key);
              void plants.remove([name, id]);
              if (value.tag !== undefined && value.tag !== null) void byTag.remove(tagKey(value.tag, name, id));
            }
            this.setCount(counts, count - gone.length);
          }
          dropped = outbox.dropSandboxIn(name, limit - gone.length);
          this.host.changeLog?.forgetSandboxIn(name);
          return gone.length + dropped.length;
        }),
      () => outbox.noteDropped(dropped),
    );
  }

  ping(): Promise<void> {
    return this.host.ping();
  }

  /** The self-service sandboxes: the environment's one registry. */
  get sandboxes(): DiskSandboxRegistry {
    return this.host.sandboxes;
  }

  /** This sandbox's plants, inside a write transaction (see the class's comment). */
  private countIn(plants: Database<StoredPlant, SandboxPlantKey>, counts: Database<number, string>): number {
    return counts.get(this.name) ?? plants.getKeysCount(sandboxRange(this.name));
  }

  private setCount(counts: Database<number, string>, count: number): void {
    if (count > 0) void counts.put(this.name, count);
    else void counts.remove(this.name);
  }

  /** The databases a write needs; missing only in a read-only open, where writes fail as storage unavailable. */
  private writable(): [Database<StoredPlant, SandboxPlantKey>, Database<string, SandboxTagKey>, Database<number, string>] {
    const { plants, byTag, counts } = this.host;
    if (plants === undefined || byTag === undefined || counts === undefined) return this.host.read(() => {
      throw new Error('the disk storage is open for reading only');
    });
    return [plants, byTag, counts];
  }
}
