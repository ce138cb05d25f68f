import { DEFAULT_SANDBOX, sandboxNameProblem, type DeliveryOutbox, type PlantRepository } from '../../core/index.js';
import { MemoryPlantRepository } from '../../adapters/storage/memory/memory-plant-repository.js';

/** MongoDB at this URI; the database is the URI's path, else `databaseName`, else DEFAULT_DATABASE_NAME (`plant_store`). */
export interface MongoStorageOption {
  readonly mongodbUri: string;
  readonly databaseName?: string | undefined;
  readonly collectionName?: string | undefined;
  /** Longest wait for any storage call before it fails with 50301; default DEFAULT_STORAGE_TIMEOUT_MS. */
  readonly timeoutMs?: number | undefined;
  /** Keep the change log the change feed follows (default true; see docs/storage.md). */
  readonly changeLog?: boolean | undefined;
}

/** Plants on disk in this directory (created if missing), held by this server while open (its workers share it: `groupWorker`). */
export interface DiskStorageOption {
  readonly dataDir: string;
  /** Longest wait for a write to reach the disk before it fails with 50301; default DEFAULT_STORAGE_TIMEOUT_MS. */
  readonly timeoutMs?: number | undefined;
  /** Open for reading only, without the directory's lock (exports while a server runs). */
  readonly readOnly?: boolean | undefined;
  /** Opened by a worker of a server group, whose primary holds the directory's lock (see docs/workers.md). */
  readonly groupWorker?: boolean | undefined;
}

/** Any repository of your own (tests swap backends this way). */
export interface CustomStorageOption {
  readonly repository: PlantRepository;
  /** Needed for webhooks: the deliveries `repository` records with its changes. */
  readonly outbox?: DeliveryOutbox;
  close?(): Promise<void>;
  readonly description?: string;
}

/** Where a store keeps its plants. Omitted: in this process's memory. */
export type StorageOption = DiskStorageOption | MongoStorageOption | CustomStorageOption;

export interface OpenStorage {
  readonly repository: PlantRepository;
  /** The deliveries the repository records with its changes (webhooks). */
  readonly outbox?: DeliveryOutbox | undefined;
  /** How the delivery worker may use the outbox; DEFAULT_OUTBOX_LIMITS when absent. */
  readonly outboxLimits?: OutboxLimits;
  /** For the start-up line, e.g. "memory". Never contains credentials. */
  readonly description: string;
  close(): Promise<void>;
}

/** Why `name` cannot be used as a sandbox of this storage, as `"name": …`; undefined when it can. */
export function sandboxProblemIn(storage: Pick<OpenStorage, 'repository' | 'description'>, name: string): string | undefined {
  const problem = sandboxNameProblem(name) ?? (name !== DEFAULT_SANDBOX && storage.repository.sandbox === undefined ? `the ${storage.description} storage keeps no sandboxes` : undefined);
  // Not String(name): a caller's object may throw from its toString.
  return problem && `${typeof name === 'string' ? `"${name}"` : `not a string (${name === null ? 'null' : typeof name})`}: ${problem}`;
}

/** Opens the storage a store keeps its plants in (the Storage port's shape; a test passes its own). */
export type StorageOpener = () => Promise<OpenStorage>;

/** What the delivery worker needs to know of the storage behind an outbox. */
export interface OutboxLimits {
  /** The longest one storage call may take before it fails: a claim's lease covers five (see leaseMsFor). */
  readonly callTimeoutMs: number;
  /** Outcome writes under way at once. */
  readonly settleConcurrency: number;
}

/**
 * For a storage that does not say (a custom repository): the built-in storages' call
 * timeout, and outcome writes 16 at once, since a database swamped by a whole batch at
 * once would time out the API's writes.
 */
export const DEFAULT_OUTBOX_LIMITS: OutboxLimits = { callTimeoutMs: 5_000, settleConcurrency: 16 };

export async function openStorage(option?: StorageOption): Promise<OpenStorage> {
  if (option === undefined) {
    const repository = new MemoryPlantRepository();
    // Every call is answered at once.
    const outboxLimits = { ...DEFAULT_OUTBOX_LIMITS, callTimeoutMs: 0 };
    return { repository, outbox: repository.outbox, outboxLimits, description: 'memory', close: async () => {} };
  }
  if ('dataDir' in option) {
    // Loaded only when asked for, like the MongoDB driver: embedded users on memory never load LMDB.
    const { DiskPlantRepository } = await import('../../adapters/storage/disk/disk-plant-repository.js');
    const repository = DiskPlantRepository.open(option.dataDir, {
      ...(option.timeoutMs && { timeoutMS: option.timeoutMs }),
      ...(option.readOnly && { readOnly: true }),
      ...(option.groupWorker && { groupWorker: true }),
    });
    // Concurrent writes share one LMDB commit (and its sync), so many outcome writes at once
    // cost about what one does: at 16 the deliveries fell seconds behind a W2 load.
    const outboxLimits = { callTimeoutMs: repository.outbox.callTimeoutMs, settleConcurrency: 128 };
    return { repository, outbox: repository.outbox, outboxLimits, description: repository.description, close: () => repository.close() };
  }
  if ('mongodbUri' in option) {
    // Loaded only when asked for: the driver alone adds about 20 MB to a process.
    const { MongoPlantRepository } = await import('../../adapters/storage/mongo/mongo-plant-repository.js');
    // Connects and creates indexes now, so a wrong URI or a missing database stops start-up.
    const repository = await MongoPlantRepository.connect(option.mongodbUri, {
      ...(option.databaseName && { databaseName: option.databaseName }),
      ...(option.collectionName && { collectionName: option.collectionName }),
      ...(option.timeoutMs && { timeoutMS: option.timeoutMs }),
      ...(option.changeLog === false && { changeLog: false }),
    });
    const outboxLimits = { ...DEFAULT_OUTBOX_LIMITS, callTimeoutMs: repository.outbox.callTimeoutMs };
    return { repository, outbox: repository.outbox, outboxLimits, description: repository.description, close: () => repository.close() };
  }
  return {
    repository: option.repository,
    outbox: option.outbox,
    description: option.description ?? 'custom repository',
    close: async () => option.close?.(),
  };
}
