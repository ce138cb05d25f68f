import type { Plant } from '../plant.js';
import type { Clock } from '../ports/clock.js';
import type { PlantRepository } from '../ports/plant-repository.js';
import type { SandboxGrant, SandboxRegistry } from '../ports/sandbox-registry.js';
import { plantsIn, sandboxEnded } from '../sandbox.js';
import { newSandboxName, newSandboxToken, sandboxTokenDigest } from './sandbox-token.js';

/** The defaults of self-service sandboxes, each written here only. */
export const SELF_SERVICE_DEFAULTS = {
  maxPlants: 1000,
  ttlMs: 24 * 3_600_000,
  /** Sign-ups per client address per hour. */
  signupsPerHour: 10,
} as const;

/** When a sandbox expires: its lifetime after its last recorded use. */
export function sandboxExpiresAt(grant: Pick<SandboxGrant, 'lastUsedAt'>, ttlMs: number): number {
  return grant.lastUsedAt + ttlMs;
}

/**
 * How often a sandbox's use is recorded at most: every tenth of its lifetime, and every
 * minute, so requests do not each write; a sandbox in use may then expire that much early.
 */
export function useRecordedEveryMs(ttlMs: number): number {
  return Math.min(60_000, Math.floor(ttlMs / 10));
}

/** How self-service sandboxes behave: their quota, their idle lifetime and their first plants. */
export interface SelfServicePolicy {
  /** Plants a self-service sandbox may hold (40303 beyond). */
  readonly maxPlants: number;
  /** A sandbox expires this long after its last authenticated request. */
  readonly ttlMs: number;
  /** The plants a new sandbox starts with. */
  readonly seed: readonly Plant[];
}

/** What a sign-up answers: the sandbox, its bearer token (shown once, never stored) and its expiry. */
export interface SignedUp {
  readonly sandbox: string;
  readonly token: string;
  readonly expiresAt: number;
}

/** Plants removed per purge call: small enough that no request waits long behind one. */
export const PURGE_BATCH = 500;
/** Sandboxes ended per expiry round. */
export const EXPIRY_BATCH = 100;

/**
 * Self-service sandboxes: signing up, ending one, and expiring idle ones. The registry keeps
 * who holds which token; the plants live in the repository's sandbox of that name.
 */
export class SelfServiceSandboxes {
  constructor(
    private readonly plants: PlantRepository,
    readonly registry: SandboxRegistry,
    private readonly clock: Clock,
    readonly policy: SelfServicePolicy,
  ) {}

  async signUp(): Promise<SignedUp> {
    const now = this.clock.now();
    const token = newSandboxToken();
    let name = newSandboxName();
    // 80 random bits: a collision is not expected, but a taken name must never be shared.
    while (!(await this.registry.create({ name, tokenDigest: sandboxTokenDigest(token), createdAt: now, lastUsedAt: now }))) name = newSandboxName();
    if (this.policy.seed.length > 0) {
      const sandbox = plantsIn(this.plants, name);
      if (sandbox.addMany !== undefined) await sandbox.addMany(this.policy.seed);
      else for (const plant of this.policy.seed) await sandbox.add(plant);
    }
    return { sandbox: name, token, expiresAt: sandboxExpiresAt({ lastUsedAt: now }, this.policy.ttlMs) };
  }

  /**
   * Ends a self-service sandbox: its plants and pending deliveries go, then its token, then
   * whatever was added meanwhile. In that order so that a crash part-way leaves the grant,
   * and the next expiry round (or a second end) finishes the job. A name without a grant
   * (a static token's or a JWT's sandbox, or none) is left untouched: false.
   */
  async end(name: string): Promise<boolean> {
    if (!(await this.registry.holds(name))) return false;
    await this.purge(name);
    const removed = await this.registry.remove(name);
    await this.purge(name);
    return removed;
  }

  /**
   * After an add to self-service sandbox `name`: if the sandbox ended meanwhile (the end
   * ran between the token's check and the write), ends it again, the new plant with it, and
   * throws 40102. The add is done before this looks, so the plant cannot outlive the end:
   * either this finds the sandbox gone, or the end's last purge comes after the add.
   */
  async confirmOpen(name: string): Promise<void> {
    if (await this.registry.holds(name)) return;
    // Its grant is gone already: end would leave it be, so the late plant is purged here.
    await this.purge(name);
    throw sandboxEnded();
  }

  /** One round of expiry: forgets up to `limit` sandboxes idle past their lifetime and purges them; answers how many. */
  async expireIdle(limit: number = EXPIRY_BATCH): Promise<number> {
    const idle = await this.registry.idleBefore(this.clock.now() - this.policy.ttlMs, limit);
    for (const grant of idle) await this.end(grant.name);
    return idle.length;
  }

  /** Removes a sandbox's plants in bounded batches, yielding between them. */
  private async purge(name: string): Promise<void> {
    const sandbox = plantsIn(this.plants, name);
    if (sandbox.purge === undefined) return;
    while ((await sandbox.purge(PURGE_BATCH)) > 0) await new Promise((resolve) => setImmediate(resolve));
  }
}
