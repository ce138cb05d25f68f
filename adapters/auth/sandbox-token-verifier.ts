import {
  ALL_SCOPES,
  SANDBOX_TOKEN_PREFIX,
  sandboxExpiresAt,
  sandboxTokenDigest,
  useRecordedEveryMs,
  type Clock,
  type Log,
  type Principal,
  type SandboxRegistry,
  type TokenVerdict,
  type TokenVerifier,
} from '../../core/index.js';

export interface SandboxTokenSettings {
  /** A sandbox expires this long after its last authenticated request. */
  readonly ttlMs: number;
  readonly maxPlants: number;
}

/** How long a verdict is reused: a sandbox ended or expired on another server stops working within it. */
export const SANDBOX_VERDICT_MS = 1000;
/** Verdicts kept at most; past it the oldest go (an attacker's random tokens cannot grow memory). */
const CACHE_CAPACITY = 10_000;

/**
 * Self-service sandbox tokens (`psb_…`), checked against the storage's registry by digest,
 * so a token works on every server sharing the storage. Other tokens are not asked about
 * (no storage call for them). Verdicts are reused for a second. A use is recorded at most
 * every tenth of the lifetime (and every minute), so a sandbox in use expires no more than
 * that early, and requests do not each write.
 */
export class SandboxTokenVerifier implements TokenVerifier {
  private readonly verdicts = new Map<string, { readonly verdict: TokenVerdict; readonly until: number }>();
  private readonly touchEveryMs: number;

  constructor(
    private readonly registry: SandboxRegistry,
    private readonly settings: SandboxTokenSettings,
    private readonly clock: Clock,
    private readonly log: Pick<Log, 'warn'>,
  ) {
    this.touchEveryMs = useRecordedEveryMs(settings.ttlMs);
  }

  verify(token: string): TokenVerdict | Promise<TokenVerdict> {
    if (!token.startsWith(SANDBOX_TOKEN_PREFIX)) return 'unknown';
    const now = this.clock.now();
    const kept = this.verdicts.get(token);
    if (kept !== undefined && kept.until > now) return kept.verdict;
    return this.lookUp(token, now);
  }

  /** Forgets the verdicts about a sandbox, when it ends here: its token stops at once on this server. */
  forget(sandbox: string): void {
    for (const [token, { verdict }] of this.verdicts) if (typeof verdict === 'object' && verdict.sandbox === sandbox) this.verdicts.delete(token);
  }

  private async lookUp(token: string, now: number): Promise<TokenVerdict> {
    // A storage that does not answer throws 50301 from here, as any storage call does.
    const grant = await this.registry.byTokenDigest(sandboxTokenDigest(token));
    let verdict: TokenVerdict = 'unknown';
    if (grant !== undefined && now <= sandboxExpiresAt(grant, this.settings.ttlMs)) {
      const principal: Principal = { subject: grant.name, scopes: ALL_SCOPES, sandbox: grant.name, maxPlants: this.settings.maxPlants };
      verdict = principal;
      if (now - grant.lastUsedAt >= this.touchEveryMs) {
        this.registry.touch(grant.name, now).catch((error: unknown) => this.log.warn({ err: error }, 'a sandbox use could not be recorded'));
      }
    }
    if (this.verdicts.size >= CACHE_CAPACITY) this.verdicts.delete(this.verdicts.keys().next().value!);
    this.verdicts.set(token, { verdict, until: now + SANDBOX_VERDICT_MS });
    return verdict;
  }
}
