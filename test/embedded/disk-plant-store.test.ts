import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPlantStore } from '../../composition/index.js';

describe('embedded store on disk', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'plant-store-embedded-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('createPlantStore({ storage: { dataDir } }) keeps plants across close and reopen; the default stays memory', async () => {
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
