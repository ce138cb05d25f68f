import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import {
  DEFAULT_SANDBOX,
  MAX_PLANT_ID,
  sandboxFull,
  checkedSandboxName,
  type AddLimits,
  type ChangeLog,
  type OutboxRecord,
  type PageRequest,
  type PendingDelivery,
  type Plant,
  type PlantRepository,
} from '../../../core/index.js';
import { DiskChangeLog, type RecordChange } from './disk-change-log.js';
import { DiskDeliveryOutbox, type PlantKey } from './disk-delivery-outbox.js';
import { DataDirLock } from './data-dir-lock.js';
import { reading, writing } from './disk-errors.js';
import { adoptEarlierTagIndex, DiskSandbox, SANDBOX_TAGS, type SandboxHost, type SandboxPlantKey, type SandboxTagKey } from './disk-sandbox.js';
import { DiskSandboxRegistry } from './disk-sandbox-registry.js';
import { mergeById } from './merge-by-id.js';
import { toPlant, toStored, type StoredPlant } from './stored-plant.js';
import { ID_KEYS, idOf } from './id-keys.js';
import { tagPart, type TagPart } from './tag-key.js';
import { DEFAULT_STORAGE_TIMEOUT_MS } from '../storage-unavailable.js';

type TagKey = [...TagPart, id: number];

export interface DiskPlantRepositoryOptions {
  /** Longest wait for a write to reach the disk, in ms, before it fails as storage unavailable. Default DEFAULT_STORAGE_TIMEOUT_MS. */
  readonly timeoutMS?: number;
  /**
   * Reads only, without taking the directory's lock: for exports and backups while a server
   * writes (LMDB readers never block its writer). The directory must hold a store already.
   */
  readonly readOnly?: boolean;
  /**
   * Opened by a worker of a server group (`--workers`): the group's primary, this process's
   * parent, holds the directory's lock (checked here), and the other workers write to the
   * environment too, so claims and wake-ups go through the database.
   */
  readonly groupWorker?: boolean;
}

/** The LMDB environment's file inside the data directory (LMDB adds `plants.lmdb-lock` beside it). */
export const DATABASE_FILE_NAME = 'plants.lmdb';

/**
 * Named databases a process may open in the environment (lmdb-js's default is 12; sixteen
 * are used). A bound per open handle, not a property of the file: a release opening fewer
 * databases, 1.0 included, opens a directory holding more.
 */
const MAX_DATABASES = 32;

/**
 * How every process opens the environment. `overlappingSync` off: each commit is synced
 * while it holds LMDB's write lock, as LMDB itself does. lmdb-js's default (on) syncs after
 * the lock is released, under a second lock shared by the processes; with several processes
 * on one environment (a server's workers), one killed at the wrong moment made another's
 * synced and acknowledged commits vanish (test/storage/disk-environment-kill.test.ts). Off costs
 * nothing measurable: 75-77 against 74-78 µs of CPU a create on one process, 98-107
 * against 102-105 on two workers (docs/workers.md, "A worker killed mid-sync").
 */
const ENVIRONMENT = { maxDbs: MAX_DATABASES, overlappingSync: false };

/** Opens the LMDB environment in `path` (the data directory's DATABASE_FILE_NAME) as every process here does. */
export function openEnvironment(path: string, readOnly = false): RootDatabase {
  return open({ path, ...ENVIRONMENT, ...(readOnly && { readOnly }) });
}

/** Sandbox views kept for reuse; past this many the oldest is dropped (a view is cheap to make again). */
const CACHED_SANDBOXES = 10_000;

/**
 * Plants in an LMDB environment in a data directory of their own: one B+ tree keyed by id
 * (`plants`, values `{ name, tag? }`), and a tag index keyed by `[tag, id]` whose value is
 * the name, so a page — filtered or not — is range reads only, O(limit + log N).
 *
 * Sandboxes: this repository holds the default sandbox's plants, in exactly the databases
 * and keys written before sandboxes existed; the named sandboxes' are in databases of their
 * own whatever their number (see DiskSandbox: plants, tag index, outbox records and a count
 * of plants per sandbox), so the default's reads and writes are what they were and none of
 * its ranges can meet another sandbox's key. The self-service sandboxes' grants are kept
 * beside them (see DiskSandboxRegistry).
 *
 * Durability: a create or delete is acknowledged only once its transaction is flushed to
 * disk (fsync). LMDB commits every write queued in one event turn as one transaction, so
 * concurrent writes share one commit and one sync (group commit) — a process's own writes:
 * a server's workers (`groupWorker`) each commit theirs, one after another.
 */
export class DiskPlantRepository implements PlantRepository {
  /**
   * Creates the directory if missing, takes its lock (DataDirInUseError when another live
   * process holds it) and opens the environment; a group's worker (`groupWorker`) only
   * checks that its primary holds the lock, a reader (`readOnly`) neither.
   */
  static open(dataDir: string, options: DiskPlantRepositoryOptions = {}): DiskPlantRepository {
    const timeoutMS = options.timeoutMS ?? DEFAULT_STORAGE_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMS) || timeoutMS <= 0) throw new RangeError(`timeoutMS must be a positive integer, got ${timeoutMS}`);
    const directory = resolve(dataDir);
    const path = join(directory, DATABASE_FILE_NAME);
    if (options.readOnly) {
      if (!existsSync(path)) throw new Error(`data directory ${directory} holds no plant store (no ${DATABASE_FILE_NAME})`);
      return new DiskPlantRepository(openEnvironment(path, true), 'reader', directory, timeoutMS);
    }
    if (options.groupWorker) {
      DataDirLock.checkHeldBy(directory, process.ppid);
      return new DiskPlantRepository(openEnvironment(path), 'group', directory, timeoutMS);
    }
    const lock = DataDirLock.prepareAndAcquire(directory);
    try {
      const root = openEnvironment(path);
      return new DiskPlantRepository(root, lock, directory, timeoutMS);
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  private readonly plants: Database<StoredPlant, number>;
  private readonly byTag: Database<string, TagKey>;
  /** The named sandboxes' plants and tag index; absent only in a read-only open of a directory written before sandboxes. */
  private readonly sandboxPlants: Database<StoredPlant, SandboxPlantKey> | undefined;
  private readonly sandboxByTag: Database<string, SandboxTagKey> | undefined;
  private readonly sandboxCounts: Database<number, string> | undefined;
  private readonly sandboxViews = new Map<string, DiskSandbox>();
  private host: SandboxHost | undefined;
  private closed = false;
  /** The deliveries recorded with the changes, in the same environment. */
  readonly outbox: DiskDeliveryOutbox;
  /** The self-service sandboxes, in the same environment. */
  readonly sandboxes: DiskSandboxRegistry;
  /** Every sandbox's changes, in the same environment; absent in a read-only open. */
  readonly changeRetention: DiskChangeLog | undefined;
  /** The default sandbox's changes. */
  readonly changes: ChangeLog | undefined;
  /** For start-up lines and logs. */
  readonly description: string;

  private constructor(
    private readonly root: RootDatabase,
    /** The directory's lock when this process holds it; or 'group' (a worker: its primary holds it) or 'reader' (a read-only open). */
    private readonly lock: DataDirLock | 'group' | 'reader',
    readonly directory: string,
    private readonly timeoutMS: number,
  ) {
    // Shared structures: msgpack stores the `{ name, tag }` shape once and decodes records
    // about twice as fast, which is most of what a page costs (see docs/benchmarks.md).
    this.plants = root.openDB<StoredPlant, number>({ name: 'plants', sharedStructuresKey: Symbol.for('structures') });
    // The tag indexes and the named sandboxes' plants are read for their ids alone (id-keys.ts).
    this.byTag = root.openDB<string, TagKey>({ name: 'plants-by-tag', ...ID_KEYS });
    // A read-only open answers undefined for a database the directory does not hold.
    this.sandboxPlants = root.openDB<StoredPlant, SandboxPlantKey>({ name: 'sandbox-plants', sharedStructuresKey: Symbol.for('structures'), ...ID_KEYS }) as
      | Database<StoredPlant, SandboxPlantKey>
      | undefined;
    this.sandboxByTag = root.openDB<string, SandboxTagKey>({ name: SANDBOX_TAGS, ...ID_KEYS }) as Database<string, SandboxTagKey> | undefined;
    // A reader (an export) leaves an earlier build's index where it is, and reads no tagged page.
    if (lock !== 'reader' && this.sandboxByTag !== undefined) adoptEarlierTagIndex(root, this.sandboxByTag);
    this.sandboxCounts = root.openDB<number, string>({ name: 'sandbox-plant-counts' }) as Database<number, string> | undefined;
    const othersWrite = lock === 'group';
    this.outbox = new DiskDeliveryOutbox(root, () => this.closed, timeoutMS, othersWrite);
    this.sandboxes = new DiskSandboxRegistry(root, { read: (read) => this.read(read), write: (start) => this.write(start) });
    // A reader (an export) follows no feed, and could not make the log's id.
    this.changeRetention = lock === 'reader' ? undefined : new DiskChangeLog(root, (read) => this.read(read), (start) => this.write(start), othersWrite);
    this.changes = this.changeRetention?.of(DEFAULT_SANDBOX);
    this.description = `disk ${directory}`;
  }

  async page({ after = 0, limit, tags }: PageRequest): Promise<Plant[]> {
    if (limit <= 0) return [];
    return this.read(() => {
      if (tags === undefined) {
        const plants: Plant[] = [];
        for (const { key, value } of this.plants.getRange({ start: after + 1, limit })) plants.push(toPlant(key, value));
        return plants;
      }
      // A plant has at most one tag, so the per-tag ranges are disjoint: merge them by id.
      const ranges = [...new Set(tags)].map((tag) => {
        const part = tagPart(tag);
        return this.byTag
          .getRange({ start: [...part, after + 1], end: [...part, MAX_PLANT_ID + 1], limit })
          .map(({ key, value }): Plant => ({ id: idOf(key), name: value, tag }));
      });
      return mergeById(ranges, limit);
    });
  }

  async findById(id: number): Promise<Plant | undefined> {
    const stored = this.read(() => this.plants.get(id));
    return stored && toPlant(id, stored);
  }

  async add(plant: Plant, deliveries: readonly PendingDelivery[] = [], limits?: AddLimits): Promise<boolean> {
    const stored = toStored(plant);
    const maxPlants = limits?.maxPlants;
    if (deliveries.length > 0 || maxPlants !== undefined) {
      // The plant and its deliveries in one transaction: one commit, both or neither; a bound
      // is decided in it too, before any write (lmdb-js keeps a callback's writes when it throws).
      let recorded: OutboxRecord | undefined;
      let full = false;
      const added = await this.recording((record) => this.writeWithDeliveries(plant.id, () => recorded, () =>
        this.root.transaction(() => {
          if (this.plants.doesExist(plant.id)) return false;
          // No count is kept for the default sandbox (release 1.0 writes it too and would not
          // keep one), so a bound there, which the service never sets, counts every plant: O(N).
          if (maxPlants !== undefined && this.plants.getKeysCount({ start: 0, end: MAX_PLANT_ID + 1 }) >= maxPlants) {
            full = true;
            return false;
          }
          void this.plants.put(plant.id, stored);
          if (stored.tag !== undefined) void this.byTag.put([...tagPart(stored.tag), plant.id], stored.name);
          recorded = this.outbox.recordIn(plant.id, deliveries);
          record(DEFAULT_SANDBOX, { created: plant });
          return true;
        }),
      ));
      if (full) throw sandboxFull(maxPlants!);
      return added;
    }
    // The existence check runs inside the write transaction: atomic, however many race,
    // from however many processes. (A transaction, not a conditional put: the change's
    // sequence number is read inside it.)
    return this.recording((record) =>
      this.write(() =>
        this.root.transaction(() => {
          if (this.plants.doesExist(plant.id)) return false;
          void this.plants.put(plant.id, stored);
          if (stored.tag !== undefined) void this.byTag.put([...tagPart(stored.tag), plant.id], stored.name);
          record(DEFAULT_SANDBOX, { created: plant });
          return true;
        }),
      ),
    );
  }

  async addMany(plants: readonly Plant[]): Promise<boolean[]> {
    // One transaction: reads inside it see its own earlier puts, so a repeated id is refused too.
    // A bulk load records no change (PlantRepository.addMany).
    return this.write(() =>
      this.root.transaction(() =>
        plants.map((plant) => {
          if (this.plants.doesExist(plant.id)) return false;
          const stored = toStored(plant);
          void this.plants.put(plant.id, stored);
          if (stored.tag !== undefined) void this.byTag.put([...tagPart(stored.tag), plant.id], stored.name);
          return true;
        }),
      ),
    );
  }

  async remove(id: number, deliveries: readonly PendingDelivery[] = []): Promise<boolean> {
    // Runs inside the write transaction, so the tag read is the one removed.
    let recorded: OutboxRecord | undefined;
    return this.recording((record) =>
      this.writeWithDeliveries(id, () => recorded, () =>
        this.plants.transaction(() => {
          const stored = this.plants.get(id);
          if (stored === undefined) return false;
          void this.plants.remove(id);
          if (stored.tag !== undefined && stored.tag !== null) void this.byTag.remove([...tagPart(stored.tag), id]);
          recorded = this.outbox.recordIn(id, deliveries);
          record(DEFAULT_SANDBOX, { deleted: id });
          return true;
        }),
      ),
    );
  }

  async ping(): Promise<void> {
    this.read(() => this.plants.getKeysCount({ limit: 1 }));
  }

  /** The default sandbox is never purged: only a named, self-service one ends. */
  async purge(_limit: number): Promise<number> {
    return 0;
  }

  /** The named sandbox's plants (the default's are this repository's); the same object for the same name while it is cached. */
  sandbox(name: string): DiskPlantRepository | DiskSandbox {
    if (name === DEFAULT_SANDBOX) return this;
    let view = this.sandboxViews.get(name);
    if (view === undefined) {
      // Its keys are ordered apart from every other sandbox's only for names of the rule.
      checkedSandboxName(name);
      if (this.sandboxViews.size >= CACHED_SANDBOXES) this.sandboxViews.delete(this.sandboxViews.keys().next().value!);
      this.sandboxViews.set(name, (view = new DiskSandbox((this.host ??= this.sandboxHost()), name)));
    }
    return view;
  }

  /** Closes the environment and releases the directory's lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.changeRetention?.close();
    try {
      await this.root.close();
    } finally {
      if (typeof this.lock === 'object') this.lock.release();
    }
  }

  /** A synchronous read; LMDB's errors (and reads after close) become StorageUnavailable. */
  private read<T>(read: () => T): T {
    return reading(() => {
      if (this.closed) throw new Error('the disk storage is closed');
      return read();
    });
  }

  /**
   * Starts a write and answers once it is on disk: the write resolves with its transaction's
   * commit and sync (shared by every write of that transaction), then `flushed` with every
   * earlier one's. A refused create waits too, so a 409 never names a plant a crash could lose.
   */
  private write<T>(start: () => Promise<T>, durable?: () => void): Promise<T> {
    return writing(this.timeoutMS, async () => {
      if (this.closed) throw new Error('the disk storage is closed');
      const result = await start();
      await this.root.flushed;
      // Past the caller's deadline too: the write landed whether or not anyone still waits.
      durable?.();
      return result;
    });
  }

  /**
   * A write that may record deliveries (`recorded` answers the outbox record it wrote): the
   * outbox's index of due deliveries learns of it once it is on disk, and reads the records
   * afresh if the write failed, since it may have been committed all the same.
   */
  private writeWithDeliveries(key: PlantKey, recorded: () => OutboxRecord | undefined, start: () => Promise<boolean>): Promise<boolean> {
    return this.writeNoting(start, () => {
      const record = recorded();
      if (record !== undefined) this.outbox.noteDurable(key, record);
    });
  }

  /**
   * A write that may change outbox records: `durable` tells the outbox once it is on disk,
   * and a failure makes it read the records afresh, since the write may have been committed.
   */
  private async writeNoting<T>(start: () => Promise<T>, durable: () => void): Promise<T> {
    try {
      return await this.write(start, durable);
    } catch (error) {
      this.outbox.forgetIndex();
      throw error;
    }
  }

  /** A write recording its changes in the change log (see DiskChangeLog.writing); a read-only open records none (and writes nothing). */
  private recording<T>(write: (record: RecordChange) => Promise<T>): Promise<T> {
    return this.changeRetention === undefined ? write(() => {}) : this.changeRetention.writing(write);
  }

  /** What the named sandboxes' views share with this repository. */
  private sandboxHost(): SandboxHost {
    return {
      root: this.root,
      plants: this.sandboxPlants,
      byTag: this.sandboxByTag,
      counts: this.sandboxCounts,
      outbox: this.outbox,
      sandboxes: this.sandboxes,
      changeLog: this.changeRetention,
      recording: (write) => this.recording(write),
      read: (read) => this.read(read),
      write: (start) => this.write(start),
      writeWithDeliveries: (key, recorded, start) => this.writeWithDeliveries(key, recorded, start),
      writeNoting: (start, durable) => this.writeNoting(start, durable),
      ping: () => this.ping(),
    };
  }
}
