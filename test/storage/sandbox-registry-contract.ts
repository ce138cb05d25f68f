import { expect } from 'chai';
import type { SandboxGrant, SandboxRegistry } from '../../core/index.js';

/** A storage's sandbox registry on fresh data, and (where the storage is durable or shared) another look at the same data. */
export interface RegistryFixture {
  readonly registry: SandboxRegistry;
  /** Closes and opens the data again, or a second instance on it; absent where neither exists (memory). */
  again?(): Promise<SandboxRegistry>;
  close(): Promise<void>;
}

const T0 = 1_800_000_000_000;
const grant = (name: string, lastUsedAt = T0): SandboxGrant => ({ name, tokenDigest: `digest-of-${name}`, createdAt: T0, lastUsedAt });

/** What every SandboxRegistry promises; each storage's test file calls it with a factory. */
export function sandboxRegistryContract(name: string, factory: () => Promise<RegistryFixture>, supports: { readonly durable: boolean }): void {
  describe(`${name} sandbox registry contract`, () => {
    let fixture: RegistryFixture;
    beforeEach(async () => {
      fixture = await factory();
    });
    afterEach(async () => fixture?.close());

    it('create records a grant found by its token digest; a taken name is refused', async () => {
      const { registry } = fixture;
      expect(await registry.create(grant('sb-a'))).to.equal(true);
      expect(await registry.create({ ...grant('sb-a'), tokenDigest: 'other' })).to.equal(false);
      expect(await registry.byTokenDigest('digest-of-sb-a')).to.deep.equal(grant('sb-a'));
      expect(await registry.byTokenDigest('other')).to.equal(undefined);
      expect(await registry.byTokenDigest('digest-of-nobody')).to.equal(undefined);
    });

    it('touch moves lastUsedAt forward only; idleBefore finds the expired ones, at most limit', async () => {
      const { registry } = fixture;
      for (const n of ['sb-1', 'sb-2', 'sb-3']) await registry.create(grant(n));
      await registry.touch('sb-2', T0 + 5000);
      await registry.touch('sb-2', T0 + 1000);
      await registry.touch('nobody', T0 + 1000);
      expect((await registry.byTokenDigest('digest-of-sb-2'))!.lastUsedAt).to.equal(T0 + 5000);
      expect((await registry.idleBefore(T0 + 2000, 10)).map((g) => g.name).sort()).to.deep.equal(['sb-1', 'sb-3']);
      expect(await registry.idleBefore(T0 + 2000, 1)).to.have.length(1);
      expect(await registry.idleBefore(T0, 10)).to.deep.equal([]);
    });

    it('remove forgets the grant and its token; list names the rest by name; holds says which are left', async () => {
      const { registry } = fixture;
      for (const n of ['sb-b', 'sb-a', 'sb-c']) await registry.create(grant(n));
      expect(await registry.holds('sb-b')).to.equal(true);
      expect(await registry.remove('sb-b')).to.equal(true);
      expect(await registry.holds('sb-b')).to.equal(false);
      expect(await registry.holds('sb-a')).to.equal(true);
      expect(await registry.holds('sb-never')).to.equal(false);
      expect(await registry.remove('sb-b')).to.equal(false);
      expect(await registry.byTokenDigest('digest-of-sb-b')).to.equal(undefined);
      expect((await registry.list()).map((g) => g.name)).to.deep.equal(['sb-a', 'sb-c']);
    });

    if (supports.durable) {
      it('what one instance records, the data keeps: another instance (or a reopening) sees it', async () => {
        await fixture.registry.create(grant('sb-kept'));
        await fixture.registry.touch('sb-kept', T0 + 7);
        const other = await fixture.again!();
        expect(await other.byTokenDigest('digest-of-sb-kept')).to.deep.equal(grant('sb-kept', T0 + 7));
      });
    }
  });
}
