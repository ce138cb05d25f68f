import 'reflect-metadata';
import { expect } from 'chai';
import { container as rootContainer } from 'tsyringe';
import { ConfigError, createPlantStore, MemoryPlantRepository, parseConfig, type PlantEvent, type PlantRepository } from '../../composition/index.js';
import { buildServer } from '../../composition/server/build-server.js';
import { InjectionTokens } from '../../composition/store/injection-tokens.js';
import type { StorageOpener } from '../../composition/store/storage.js';
import { quietLog } from '../support/quiet-log.js';

const token = 'sandbox-config-token-0123456789';

describe('sandboxes in the configuration and the embedded API', () => {
  it('a token entry names its sandbox with sandbox=<name>, beside its scopes or alone', () => {
    const result = parseConfig([], { PLANT_STORE_TOKENS: `${token} sandbox=garden,${token}x plants:read sandbox=a-1,${token}y` });
    expect(result.ok && result.config.access.tokens).to.deep.equal([
      { token, sandbox: 'garden' },
      { token: `${token}x`, scopes: ['plants:read'], sandbox: 'a-1' },
      { token: `${token}y` },
    ]);
  });

  it('refuses a sandbox name outside the rule, or two of them, naming the token by position only', () => {
    for (const entry of [`${token} sandbox=Garden`, `${token} sandbox=`, `${token} sandbox=${'a'.repeat(65)}`, `${token} sandbox=a sandbox=b`]) {
      const result = parseConfig([], { PLANT_STORE_TOKENS: entry });
      expect(result.ok, entry).to.equal(false);
      const line = result.ok ? '' : result.problems.join('\n');
      expect(line).to.match(/token #1 names a sandbox that cannot be one/).and.match(/a-z, 0-9 and -/);
      expect(line).not.to.include(token);
    }
  });

  it('a server whose tokens name sandboxes refuses to start on a storage without them, saying so', async () => {
    const container = rootContainer.createChildContainer();
    const repository: PlantRepository = new MemoryPlantRepository();
    // A custom repository of the plain port: no sandbox().
    const plain: PlantRepository = { page: (r) => repository.page(r), findById: (id) => repository.findById(id), add: (p) => repository.add(p), remove: (id) => repository.remove(id), ping: async () => {} };
    container.register<StorageOpener>(InjectionTokens.Storage, { useValue: async () => ({ repository: plain, description: 'custom repository', close: async () => {} }) });
    container.register(InjectionTokens.Log, { useValue: quietLog() });
    const config = parseConfig([], { PORT: '0', PLANT_STORE_TOKENS: `${token} sandbox=garden` });
    if (!config.ok) throw new Error(config.problems.join('; '));
    let refusal: unknown;
    await buildServer(config.config, container).then(
      (built) => built.close(0),
      (error) => (refusal = error),
    );
    expect(refusal).to.be.instanceOf(ConfigError);
    expect((refusal as Error).message).to.match(/tokens name sandboxes .* but the custom repository storage keeps none/);
  });

  it('store.sandbox(name): the same ids apart from the default sandbox and each other, events per sandbox', async () => {
    const store = await createPlantStore();
    try {
      const garden = store.sandbox('garden');
      const heard: PlantEvent[] = [];
      const everything: PlantEvent[] = [];
      garden.subscribe((event) => void heard.push(event));
      store.subscribe((event) => void everything.push(event));
      await store.create({ id: 1, name: 'default' });
      await garden.create({ id: 1, name: 'garden' });
      await store.sandbox('shed').create({ id: 1, name: 'shed' });
      expect(await store.get(1)).to.deep.equal({ id: 1, name: 'default' });
      expect(await garden.get(1)).to.deep.equal({ id: 1, name: 'garden' });
      expect((await garden.list()).plants).to.deep.equal([{ id: 1, name: 'garden' }]);
      await garden.delete(1);
      expect((await store.list()).plants).to.deep.equal([{ id: 1, name: 'default' }]);
      expect(store.sandbox('default')).to.be.an('object');
      expect((await store.sandbox('default').get(1)).name).to.equal('default');
      expect(heard.map((event) => [event.type, event.sandbox])).to.deep.equal([
        ['plant.created', 'garden'],
        ['plant.deleted', 'garden'],
      ]);
      expect(everything.map((event) => event.sandbox ?? 'default')).to.deep.equal(['default', 'garden', 'shed', 'garden']);
      expect(() => store.sandbox('Not OK')).to.throw(ConfigError, /a-z, 0-9 and -/);
      // What a JavaScript caller may pass: none reaches the default sandbox or another's (['garden'] made a string is "garden").
      const notNames: unknown[] = [undefined, null, 42, ['garden'], new String('garden'), { toString: () => 'garden' }];
      for (const name of notNames) expect(() => store.sandbox(name as string), String(typeof name)).to.throw(ConfigError, /^not a string \((undefined|null|number|object)\): a sandbox name/);
    } finally {
      await store.close();
    }
  });

  it('store.sandbox(name) on a storage without sandboxes throws ConfigError; its default sandbox still works', async () => {
    const inner = new MemoryPlantRepository();
    const plain: PlantRepository = { page: (r) => inner.page(r), findById: (id) => inner.findById(id), add: (p) => inner.add(p), remove: (id) => inner.remove(id), ping: async () => {} };
    const store = await createPlantStore({ storage: { repository: plain }, log: quietLog() });
    try {
      expect(() => store.sandbox('garden')).to.throw(ConfigError, /keeps no sandboxes/);
      await store.sandbox('default').create({ id: 2, name: 'ok' });
      expect(await store.get(2)).to.deep.equal({ id: 2, name: 'ok' });
    } finally {
      await store.close();
    }
  });
});
