import type { SandboxGrant, SandboxRegistry } from '../../../core/index.js';

/** The self-service sandboxes of a memory storage: gone with the process, like its plants. */
export class MemorySandboxRegistry implements SandboxRegistry {
  private readonly byName = new Map<string, SandboxGrant>();
  private readonly nameByDigest = new Map<string, string>();

  async create(grant: SandboxGrant): Promise<boolean> {
    if (this.byName.has(grant.name)) return false;
    this.byName.set(grant.name, grant);
    this.nameByDigest.set(grant.tokenDigest, grant.name);
    return true;
  }

  async byTokenDigest(tokenDigest: string): Promise<SandboxGrant | undefined> {
    const name = this.nameByDigest.get(tokenDigest);
    return name === undefined ? undefined : this.byName.get(name);
  }

  async touch(name: string, at: number): Promise<void> {
    const grant = this.byName.get(name);
    if (grant !== undefined && at > grant.lastUsedAt) this.byName.set(name, { ...grant, lastUsedAt: at });
  }

  async idleBefore(before: number, limit: number): Promise<SandboxGrant[]> {
    const idle: SandboxGrant[] = [];
    for (const grant of this.byName.values()) {
      if (idle.length >= limit) break;
      if (grant.lastUsedAt < before) idle.push(grant);
    }
    return idle;
  }

  async holds(name: string): Promise<boolean> {
    return this.byName.has(name);
  }

  async remove(name: string): Promise<boolean> {
    const grant = this.byName.get(name);
    if (grant === undefined) return false;
    this.byName.delete(name);
    this.nameByDigest.delete(grant.tokenDigest);
    return true;
  }

  async list(): Promise<SandboxGrant[]> {
    return [...this.byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
