import type { Collection } from 'mongodb';
import type { SandboxGrant, SandboxRegistry } from '../../../core/index.js';
import { isDuplicateKey, withDeadline } from './mongo-errors.js';

/** A self-service sandbox's grant: `_id` is its name. */
export interface GrantDocument {
  _id: string;
  tokenDigest: string;
  createdAt: number;
  lastUsedAt: number;
}

/** Finds a grant by its token's digest on every request (a digest is never shared: unique). */
export const TOKEN_DIGEST_INDEX = { key: { tokenDigest: 1 }, name: 'tokenDigest_1', unique: true } as const;
/** Finds the idle sandboxes, oldest use first, for the expiry sweep every server runs each second. */
export const LAST_USED_INDEX = { key: { lastUsedAt: 1 }, name: 'lastUsedAt_1' } as const;

/**
 * The self-service sandboxes of a MongoDB storage, in a collection beside the plants, so every
 * server sharing the database knows them. Each call is one single-document operation (but
 * `create` when it is refused), bounded by the storage's timeout.
 */
export class MongoSandboxRegistry implements SandboxRegistry {
  constructor(
    private readonly grants: Collection<GrantDocument>,
    private readonly timeoutMS: number,
  ) {}

  /** Creates the indexes the registry's queries rely on; safe to call again. */
  async ensureIndexes(): Promise<void> {
    await this.call(() => this.grants.createIndex(TOKEN_DIGEST_INDEX.key, { name: TOKEN_DIGEST_INDEX.name, unique: true }));
    await this.call(() => this.grants.createIndex(LAST_USED_INDEX.key, { name: LAST_USED_INDEX.name }));
  }

  async create(grant: SandboxGrant): Promise<boolean> {
    const document: GrantDocument = { _id: grant.name, tokenDigest: grant.tokenDigest, createdAt: grant.createdAt, lastUsedAt: grant.lastUsedAt };
    return this.call(async () => {
      try {
        await this.grants.insertOne(document);
        return true;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        // Refused by the name (taken: false) or by the digest, which a new random token never
        // repeats: that one is an error, or the caller would try new names for ever.
        if ((await this.grants.findOne({ _id: grant.name }, { projection: { _id: 1 } })) !== null) return false;
        throw error;
      }
    });
  }

  async byTokenDigest(tokenDigest: string): Promise<SandboxGrant | undefined> {
    const document = await this.call((signal) => this.grants.findOne({ tokenDigest }, { signal }));
    return document === null ? undefined : grantOf(document);
  }

  async touch(name: string, at: number): Promise<void> {
    // `$max`: a late touch from a slower server never moves the last use back.
    await this.call(() => this.grants.updateOne({ _id: name }, { $max: { lastUsedAt: at } }));
  }

  async idleBefore(before: number, limit: number): Promise<SandboxGrant[]> {
    if (limit <= 0) return [];
    const documents = await this.call((signal) => this.grants.find({ lastUsedAt: { $lt: before } }, { sort: { lastUsedAt: 1 }, limit, signal }).toArray());
    return documents.map(grantOf);
  }

  async holds(name: string): Promise<boolean> {
    return (await this.call((signal) => this.grants.findOne({ _id: name }, { projection: { _id: 1 }, signal }))) !== null;
  }

  async remove(name: string): Promise<boolean> {
    return (await this.call(() => this.grants.deleteOne({ _id: name }))).deletedCount === 1;
  }

  async list(): Promise<SandboxGrant[]> {
    const documents = await this.call((signal) => this.grants.find({}, { sort: { _id: 1 }, signal }).toArray());
    return documents.map(grantOf);
  }

  private call<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withDeadline(this.timeoutMS, work);
  }
}

/** Field by field: what else a document holds never reaches the caller. */
const grantOf = (document: GrantDocument): SandboxGrant => ({
  name: document._id,
  tokenDigest: document.tokenDigest,
  createdAt: document.createdAt,
  lastUsedAt: document.lastUsedAt,
});
