/**
 * A self-service sandbox as the storage keeps it: found by its token's digest (the token
 * itself is never stored), and how recently it was used, for its expiry.
 */
export interface SandboxGrant {
  readonly name: string;
  /** SHA-256 of the bearer token, hex. */
  readonly tokenDigest: string;
  readonly createdAt: number;
  /** The last recorded authenticated request (ms since the epoch). */
  readonly lastUsedAt: number;
}

/**
 * The self-service sandboxes of a storage, kept with its plants so that every server
 * sharing the storage knows them and they outlive a restart.
 */
export interface SandboxRegistry {
  /** Records a new sandbox; false when the name is taken. */
  create(grant: SandboxGrant): Promise<boolean>;
  /** The sandbox whose token has this digest, or undefined. */
  byTokenDigest(tokenDigest: string): Promise<SandboxGrant | undefined>;
  /** Records a use at `at` (never moving lastUsedAt back). */
  touch(name: string, at: number): Promise<void>;
  /** Up to `limit` sandboxes last used before `before`: the expired ones. */
  idleBefore(before: number, limit: number): Promise<SandboxGrant[]>;
  /** Whether the sandbox is registered (its token works). */
  holds(name: string): Promise<boolean>;
  /** Forgets the sandbox (its token stops working); false when there was none. Its plants are purged apart. */
  remove(name: string): Promise<boolean>;
  /** Every self-service sandbox, by name. */
  list(): Promise<SandboxGrant[]>;
}
