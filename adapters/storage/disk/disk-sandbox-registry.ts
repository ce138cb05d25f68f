import type { Database, RootDatabase } from 'lmdb';
import type { SandboxGrant, SandboxRegistry } from '../../../core/index.js';

/** A grant as stored under its name: everything but the name, which is the key. */
interface StoredGrant {
  readonly tokenDigest: string;
  readonly createdAt: number;
  readonly lastUsedAt: number;
}

/** A grant in the index by last use: ordered-binary orders it by time, then by name. */
type UseKey = [lastUsedAt: number, name: string];

/** What the registry needs of the environment's repository. */
export interface RegistryHost {
  /** A synchronous read, failing as StorageUnavailable (after close too). */
  read<T>(read: () => T): T;
  /** A write, answered once on disk. */
  write<T>(start: () => Promise<T>): Promise<T>;
}

/**
 * The self-service sandboxes of a disk storage, in three databases of the environment:
 * `sandbox-grants` keyed by name, `sandbox-grant-digests` (token digest → name) and
 * `sandbox-grants-by-use` keyed `[lastUsedAt, name]`, so finding a token is two point reads,
 * and the idle ones are one range read of at most `limit` entries however many sandboxes
 * there are. Each change writes all three in one transaction, so they never disagree.
 */
export class DiskSandboxRegistry implements SandboxRegistry {
  /** Absent only in a read-only open of a directory written before them: no grants there. */
  private readonly grants: Database<StoredGrant, string> | undefined;
  private readonly digests: Database<string, string> | undefined;
  private readonly byUse: Database<true, UseKey> | undefined;

  constructor(
    private readonly root: RootDatabase,
    private readonly host: RegistryHost,
  ) {
    // A read-only open answers undefined for a database the directory does not hold.
    this.grants = root.openDB<StoredGrant, string>({ name: 'sandbox-grants' }) as typeof this.grants;
    this.digests = root.openDB<string, string>({ name: 'sandbox-grant-digests' }) as typeof this.digests;
    this.byUse = root.openDB<true, UseKey>({ name: 'sandbox-grants-by-use' }) as typeof this.byUse;
  }

  async create(grant: SandboxGrant): Promise<boolean> {
    const [grants, digests, byUse] = this.writable();
    const { name, tokenDigest, createdAt, lastUsedAt } = grant;
    return this.host.write(() =>
      this.root.transaction(() => {
        if (grants.doesExist(name)) return false;
        void grants.put(name, { tokenDigest, createdAt, lastUsedAt });
        void digests.put(tokenDigest, name);
        void byUse.put([lastUsedAt, name], true);
        return true;
      }),
    );
  }

  async byTokenDigest(tokenDigest: string): Promise<SandboxGrant | undefined> {
    return this.host.read(() => {
      const name = this.digests?.get(tokenDigest);
      return name === undefined ? undefined : this.grantNamed(name);
    });
  }

  async holds(name: string): Promise<boolean> {
    return this.host.read(() => this.grants?.doesExist(name) ?? false);
  }

  async touch(name: string, at: number): Promise<void> {
    const [grants, , byUse] = this.writable();
    // A touch that changes nothing (no such name, or no later than the recorded use) writes
    // nothing and waits for no sync.
    const current = this.host.read(() => grants.get(name));
    if (current === undefined || at <= current.lastUsedAt) return;
    // Read again inside the transaction: concurrent touches never move it back.
    await this.host.write(() =>
      this.root.transaction(() => {
        const stored = grants.get(name);
        if (stored === undefined || at <= stored.lastUsedAt) return;
        void byUse.remove([stored.lastUsedAt, name]);
        void byUse.put([at, name], true);
        void grants.put(name, { ...stored, lastUsedAt: at });
      }),
    );
  }

  async idleBefore(before: number, limit: number): Promise<SandboxGrant[]> {
    if (limit <= 0) return [];
    return this.host.read(() => {
      const idle: SandboxGrant[] = [];
      // `[before]` sorts below every `[before, name]`: the range holds the times below it.
      for (const [, name] of this.byUse?.getKeys({ end: [before], limit }) ?? []) {
        const grant = this.grantNamed(name);
        if (grant !== undefined) idle.push(grant);
      }
      return idle;
    });
  }

  async remove(name: string): Promise<boolean> {
    const [grants, digests, byUse] = this.writable();
    return this.host.write(() =>
      this.root.transaction(() => {
        const stored = grants.get(name);
        if (stored === undefined) return false;
        void grants.remove(name);
        void byUse.remove([stored.lastUsedAt, name]);
        // A digest is only ever another grant's if two random tokens met; never take its entry.
        if (digests.get(stored.tokenDigest) === name) void digests.remove(stored.tokenDigest);
        return true;
      }),
    );
  }

  async list(): Promise<SandboxGrant[]> {
    // Names of the rule are ASCII, so the key order (bytewise) is the names' order.
    return this.host.read(() => [...(this.grants?.getRange() ?? [])].map(({ key, value }) => ({ name: key, ...value })));
  }

  private grantNamed(name: string): SandboxGrant | undefined {
    const stored = this.grants?.get(name);
    return stored && { name, ...stored };
  }

  /** The databases a write needs; missing only in a read-only open, where writes fail as storage unavailable. */
  private writable(): [Database<StoredGrant, string>, Database<string, string>, Database<true, UseKey>] {
    const { grants, digests, byUse } = this;
    if (grants === undefined || digests === undefined || byUse === undefined) {
      return this.host.read(() => {
        throw new Error('the disk storage is open for reading only');
      });
    }
    return [grants, digests, byUse];
  }
}
