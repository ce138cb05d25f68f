import { expect } from 'chai';
import { createPlantStore } from '../../composition/index.js';
import { tempDir } from '../support/temp-dir.js';

describe('embedded store on disk', () => {
  it('createPlantStore({ storage: { dataDir } }) keeps plants across close and reopen; the default stays memory', async () => {
    using dir = tempDir('plant-store-embedded-');
    const dataDir = dir.path;
    const store = await createPlantStore({ storage: { dataDir } });
    expect(store.storageDescription).to.equal(`disk ${dataDir}`);
    await store.create({ id: 1, name: 'Monstera', tag: 'tropical' });
    await store.close();

    const reopened = await createPlantStore({ storage: { dataDir } });
    try {
      expect(await reopened.get(1)).to.deep.equal({ id: 1, name: 'Monstera', tag: 'tropical' });
    } finally {
      await reopened.close();
    }
    const inMemory = await createPlantStore();
    expect(inMemory.storageDescription).to.equal('memory');
  });
});
