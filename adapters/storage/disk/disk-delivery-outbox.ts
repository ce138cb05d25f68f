import { randomUUID } from 'node:crypto';
import type { Database, RootDatabase } from 'lmdb';
import {
  DEFAULT_SANDBOX,
  claimed,
  isClaimable,
  MAX_PLANT_ID,
  nextDeliveries,
  retried,
  settled,
  stateOf,
  withDeliveries,
  type DeliveryOutbox,
  type DeliveryOutcome,
  type DeliveryState,
  type OutboxClaim,
  type OutboxRecord,
  type PendingDelivery,
} from '../../../core/index.js';
import { toStoreError } from '../storage-unavailable.js';
import { reading, writing } from './disk-errors.js';
import { isRunning } from './process-alive.js';

/** How soon a record another live process has leased is looked at again (see noteDue). */
const LEASE_RECHECK_MS = 1000;

/** A named sandbox's plant in its databases: its sandbox, then its id (ordered-binary orders them so). */
export type SandboxPlantKey = [sandbox: string, id: number];

/**
 * A plant in the outbox's in-memory maps (due times, claims): its id in the default
 * sandbox, as before sandboxes, and `<sandbox>/<id>` in a named one.
 */
export type PlantKey = number | string;

/** An outbox record a purge removed: its plant, and the claim held on it then (if any). */
export interface DroppedRecord {
  readonly key: string;
  readonly claim: object | undefined;
}

export const namedPlantKey = (sandbox: string, id: number): string => `${sandbox}/${id}`;

/** The database key of a named sandbox's plant from its in-memory key (the id follows the last `/`). */
function storedKey(key: string): SandboxPlantKey {
  const slash = key.lastIndexOf('/');
  return [key.slice(0, slash), Number(key.slice(slash + 1))];
}

/** Every key of one named sandbox in a database keyed `[sandbox, id]`: `[name]` is a prefix of them all, and of no other sandbox's below the end. */
export const sandboxRange = (sandbox: string) => ({ start: [sandbox], end: [sandbox, MAX_PLANT_ID + 1] });

/**
 * The outbox of the disk storage: a database `outbox` in the same LMDB environment, one
 * record per plant with deliveries, keyed by plant id; the named sandboxes' records are in
 * `sandbox-outbox`, keyed `[sandbox, id]`, so the default's are stored as before sandboxes.
 * `recordIn` runs inside the plant's own write transaction, so a change and its deliveries
 * are one commit and one sync.
 */
export class DiskDeliveryOutbox implements DeliveryOutbox {
  private readonly records: Database<OutboxRecord, number>;
  /** Absent only in a read-only environment written before sandboxes: none has records then. */
  private readonly sandboxRecords: Database<OutboxRecord, SandboxPlantKey> | undefined;
  /** Endpoints that answered 410 Gone, by URL: when (ms since the epoch). */
  private readonly endpoints: Database<number, string>;
  /**
   * Claims, by plant, this process's. In a process alone on the directory (its lock) they
   * are kept in memory only, since a claim cannot outlive the process that made it: claiming
   * writes nothing (no commit, no sync), and after a crash every delivery is claimable at
   * once. When other processes write too (a server's workers), a claim is also written
   * into its record as a lease naming this process (`othersWrite`), which they respect, and
   * take over once lapsed or once this process is gone.
   */
  private readonly claims = new Map<PlantKey, { readonly lease: string; readonly until: number }>();
  /**
   * When each record is next due, by plant, kept in memory so that a claim reads only the
   * records that are due: reading every record (as a claim did) took 230 ms at 100,000
   * records waiting for a retry (an endpoint down), on every wake, i.e. every change. A
   * write is noted here only once it is on disk (`noteDurable`): LMDB runs a transaction's
   * callback before the commit, and a claim reading the record in between would not find it
   * (and, when it dropped the entry, leave the delivery unsent until a restart). Only a hint:
   * a claim checks the record itself. Built by one scan at the first claim, and again after
   * a failed write (whose records may not be what the index says).
   */
  private due: Map<PlantKey, number> | undefined;

  constructor(
    private readonly root: RootDatabase,
    private readonly isClosed: () => boolean,
    /** The longest one of its writes may take before it fails (the storage's timeout). */
    readonly callTimeoutMs: number,
    /** Whether other processes deliver from the same records (a server's workers): claims are leases in the records then. */
    private readonly othersWrite = false,
  ) {
    this.records = root.openDB<OutboxRecord, number>({ name: 'outbox' });
    this.endpoints = root.openDB<number, string>({ name: 'gone-endpoints' });
    // A read-only open answers undefined for a database the directory does not hold.
    this.sandboxRecords = root.openDB<OutboxRecord, SandboxPlantKey>({ name: 'sandbox-outbox' }) as typeof this.sandboxRecords;
  }

  /**
   * Appends a change's deliveries; call only inside a write transaction, and hand the record
   * it answers to `noteDurable` once that transaction is on disk.
   */
  recordIn(plantId: number, deliveries: readonly PendingDelivery[]): OutboxRecord | undefined {
    if (deliveries.length === 0) return undefined;
    const record = withDeliveries(this.records.get(plantId), deliveries)!;
    void this.records.put(plantId, record);
    return record;
  }

  /** `recordIn` for a named sandbox's plant; its in-memory key is `namedPlantKey(sandbox, plantId)`. */
  recordInSandbox(sandbox: string, plantId: number, deliveries: readonly PendingDelivery[]): OutboxRecord | undefined {
    if (deliveries.length === 0) return undefined;
    const records = this.sandboxRecords ?? readOnly();
    const key: SandboxPlantKey = [sandbox, plantId];
    const record = withDeliveries(records.get(key), deliveries)!;
    void records.put(key, record);
    return record;
  }

  /**
   * Removes up to `limit` of the named sandbox's records (its pending deliveries with them);
   * call only inside a write transaction, and hand what it answers to `noteDropped` once that
   * transaction is on disk.
   */
  dropSandboxIn(sandbox: string, limit: number): DroppedRecord[] {
    if (!(limit > 0)) return [];
    const records = this.sandboxRecords ?? readOnly();
    // Read whole before removing: the range is not walked while it changes.
    const keys = [...records.getKeys({ ...sandboxRange(sandbox), limit })];
    return keys.map((stored) => {
      void records.remove(stored);
      const key = namedPlantKey(stored[0], stored[1]);
      return { key, claim: this.claims.get(key) };
    });
  }

  /**
   * Records dropped by a purge are gone on disk: the index follows, and claims held on them
   * then are let go (their settle answers false). The index entry is read afresh rather than
   * deleted, since a write committed meanwhile may have recorded the plant anew; a claim made
   * since is someone else's and stays.
   */
  noteDropped(dropped: readonly DroppedRecord[]): void {
    for (const { key, claim } of dropped) {
      if (claim !== undefined && this.claims.get(key) === claim) this.claims.delete(key);
      if (this.due === undefined) continue;
      try {
        this.noteDue(key, this.recordAt(key));
      } catch {
        // Unreadable (closing): the next claim reads the records afresh.
        this.due = undefined;
      }
    }
  }

  /** A record written by a change is on disk: claims may take it from now on. */
  noteDurable(key: PlantKey, record: OutboxRecord): void {
    this.noteDue(key, record);
  }

  /** A change's write failed, perhaps after its commit: the next claim reads the records afresh. */
  forgetIndex(): void {
    this.due = undefined;
  }

  async claim(now: number, leaseMs: number, limit: number): Promise<OutboxClaim[]> {
    const claimable = reading(() => {
      if (this.isClosed()) throw new Error('the disk storage is closed');
      const due = (this.due ??= this.scanDue());
      const found: [PlantKey, OutboxRecord][] = [];
      for (const [key, dueAt] of due) {
        if (found.length >= limit) break;
        if (dueAt > now) continue;
        // Held by a claim still running (a lapsed one is free to take).
        if ((this.claims.get(key)?.until ?? -Infinity) >= now) continue;
        const value = this.recordAt(key);
        if (value === undefined) {
          due.delete(key);
          continue;
        }
        if (!this.isClaimable(value, now)) {
          this.noteDue(key, value, now);
          continue;
        }
        found.push([key, value]);
      }
      return found;
    });
    if (!this.othersWrite) return claimable.map(([key, value]) => this.hold(key, newClaim(key, value, now, leaseMs)));
    if (claimable.length === 0) return [];
    // Leases are written, checked again inside the transaction: another process may have
    // claimed meanwhile. Visible to the others once committed; not waited on to reach the
    // disk, since after a crash of the machine no claim is left to respect.
    // Held here only once committed: a failed write leaves no claim that would keep the
    // plants from everyone until it lapsed.
    const notes: [PlantKey, OutboxRecord][] = [];
    const claims = await this.transaction(notes, () =>
      claimable.flatMap(([key]) => {
        const value = this.recordAt(key);
        if (value === undefined || !this.isClaimable(value, now)) return [];
        const claim = newClaim(key, value, now, leaseMs);
        const leased = claimed(value, claim.lease, claim.leaseUntil);
        this.putRecord(key, leased);
        notes.push([key, leased]);
        return [[key, claim] as const];
      }),
      { durable: false },
    );
    return claims.map(([key, claim]) => this.hold(key, claim));
  }

  async settle(claim: OutboxClaim, outcomes: readonly DeliveryOutcome[]): Promise<boolean> {
    const key: PlantKey = claim.sandbox === undefined ? claim.plantId : namedPlantKey(claim.sandbox, claim.plantId);
    if (this.claims.get(key)?.lease !== claim.lease) return false;
    try {
      const notes: [PlantKey, OutboxRecord | undefined][] = [];
      return await this.transaction(notes, () => {
        const record = this.recordAt(key);
        if (record === undefined) return false;
        // Another process took the record over once this claim lapsed: its outcome counts.
        if (this.othersWrite && record.lease !== claim.lease) return false;
        const next = settled(record, outcomes);
        this.putRecord(key, next);
        notes.push([key, next]);
        return true;
      });
    } finally {
      // Held until the outcome is on disk: a claim before that would read the record as it
      // was and send the same deliveries again.
      if (this.claims.get(key)?.lease === claim.lease) this.claims.delete(key);
    }
  }

  async state(sandbox?: string): Promise<DeliveryState> {
    return reading(() => {
      if (this.isClosed()) throw new Error('the disk storage is closed');
      const values: OutboxRecord[] = [];
      // Each sandbox's records are apart: a named sandbox's state reads its own range only.
      if (sandbox === undefined || sandbox === DEFAULT_SANDBOX) for (const { value } of this.records.getRange()) values.push(value);
      if (sandbox !== DEFAULT_SANDBOX && this.sandboxRecords !== undefined) {
        for (const { value } of this.sandboxRecords.getRange(sandbox === undefined ? {} : sandboxRange(sandbox))) values.push(value);
      }
      return stateOf(values, sandbox);
    });
  }

  retryFailed(now: number): Promise<number> {
    const notes: [PlantKey, OutboxRecord][] = [];
    return this.transaction(notes, () => {
      for (const endpoint of this.endpoints.getKeys()) void this.endpoints.remove(endpoint);
      let total = 0;
      for (const { key, value } of this.records.getRange()) {
        const { record, count } = retried(value, now);
        if (count > 0) {
          void this.records.put(key, record);
          notes.push([key, record]);
        }
        total += count;
      }
      for (const { key, value } of this.sandboxRecords?.getRange() ?? []) {
        const { record, count } = retried(value, now);
        if (count > 0) {
          void this.sandboxRecords!.put(key, record);
          notes.push([namedPlantKey(key[0], key[1]), record]);
        }
        total += count;
      }
      return total;
    });
  }

  async goneEndpoints(): Promise<ReadonlySet<string>> {
    return reading(() => {
      if (this.isClosed()) throw new Error('the disk storage is closed');
      return new Set(this.endpoints.getKeys());
    });
  }

  async markGone(endpoint: string, now: number): Promise<void> {
    await this.transaction([], () => void this.endpoints.put(endpoint, now));
  }

  /**
   * Due and not leased, or leased by a process that no longer runs: the workers of a server
   * share one machine, so a crashed worker's claims are taken over at once, not when they
   * lapse (a lease names its process, see newClaim).
   */
  private isClaimable(record: OutboxRecord, now: number): boolean {
    if (isClaimable(record, now)) return true;
    // Due but leased (the core's rule, the lease left out): free if its holder is gone.
    if (record.lease === undefined || !isClaimable({ ...record, leaseUntil: undefined }, now)) return false;
    const holder = holderOf(record.lease);
    return holder !== undefined && !isRunning(holder);
  }

  /** The claim held by this process in memory until it settles or lapses. */
  private hold(key: PlantKey, claim: OutboxClaim): OutboxClaim {
    this.claims.set(key, { lease: claim.lease, until: claim.leaseUntil });
    return claim;
  }

  /** Writes (or, for undefined, removes) a plant's record of any sandbox; inside a write transaction. */
  private putRecord(key: PlantKey, record: OutboxRecord | undefined): void {
    if (typeof key === 'number') {
      if (record === undefined) void this.records.remove(key);
      else void this.records.put(key, record);
    } else {
      const stored = storedKey(key);
      if (record === undefined) void this.sandboxRecords!.remove(stored);
      else void this.sandboxRecords!.put(stored, record);
    }
  }

  /**
   * A write of the outbox's own; `notes` (filled by `work`) reach the index once it is on
   * disk (once committed, when not `durable`).
   */
  private async transaction<T>(notes: readonly [PlantKey, OutboxRecord | undefined][], work: () => T, { durable = true } = {}): Promise<T> {
    if (this.isClosed()) throw toStoreError(new Error('the disk storage is closed'));
    try {
      return await writing(this.callTimeoutMs, async () => {
        const result = await this.root.transaction(work);
        if (durable) await this.root.flushed;
        for (const [key, record] of notes) this.noteDue(key, record);
        return result;
      });
    } catch (error) {
      // The index may now name due times the records do not have: the next claim rebuilds it.
      this.due = undefined;
      throw toStoreError(error);
    }
  }

  /**
   * The index entry for a record as just written (or read at `now`): its due time, or none.
   * One leased by another process is looked at again once the lease lapses, or, read now,
   * within LEASE_RECHECK_MS: should its process die, its claims are taken over then.
   */
  private noteDue(key: PlantKey, record: OutboxRecord | undefined, now?: number): void {
    if (this.due === undefined) return;
    if (record?.dueAt === undefined) return void this.due.delete(key);
    const leased = record.leaseUntil === undefined ? record.dueAt : Math.min(record.leaseUntil + 1, now === undefined ? Infinity : now + LEASE_RECHECK_MS);
    this.due.set(key, Math.max(record.dueAt, leased));
  }

  /** The record of a plant of any sandbox, by its in-memory key. */
  private recordAt(key: PlantKey): OutboxRecord | undefined {
    return typeof key === 'number' ? this.records.get(key) : this.sandboxRecords?.get(storedKey(key));
  }

  private scanDue(): Map<PlantKey, number> {
    const due = new Map<PlantKey, number>();
    for (const { key, value } of this.records.getRange()) if (value.dueAt !== undefined) due.set(key, value.dueAt);
    for (const { key, value } of this.sandboxRecords?.getRange() ?? []) if (value.dueAt !== undefined) due.set(namedPlantKey(key[0], key[1]), value.dueAt);
    return due;
  }
}

/** A claim of this process on a record as read at `now`, until `now + leaseMs`; its lease names this process (holderOf). */
function newClaim(key: PlantKey, value: OutboxRecord, now: number, leaseMs: number): OutboxClaim {
  const lease = `${process.pid}:${randomUUID()}`;
  const leaseUntil = now + leaseMs;
  if (typeof key === 'number') return { plantId: key, lease, leaseUntil, deliveries: nextDeliveries(value, now) };
  const [sandbox, plantId] = storedKey(key);
  return { plantId, sandbox, lease, leaseUntil, deliveries: nextDeliveries(value, now) };
}

/** The process a lease of newClaim's names; undefined for any other lease. */
function holderOf(lease: string): number | undefined {
  const holder = Number(lease.slice(0, lease.indexOf(':')));
  return Number.isInteger(holder) && holder > 0 ? holder : undefined;
}

/** A write of a named sandbox's into an environment opened read-only. */
function readOnly(): never {
  throw new Error('the disk storage is open for reading only');
}
