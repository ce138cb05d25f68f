import { expect } from 'chai';
import fc from 'fast-check';
import { open, type Database, type Key, type RootDatabase } from 'lmdb';
import { MAX_PLANT_ID } from '../../core/index.js';
import { ID_KEYS, idOf } from '../../adapters/storage/disk/id-keys.js';
import { tagPart } from '../../adapters/storage/disk/tag-key.js';
import { tempDir } from '../support/temp-dir.js';

const sandboxName = fc.stringMatching(/^[a-z0-9-]{1,64}$/);
// Any tag: short and long, with the characters ordered-binary escapes or takes as separators.
const tag = fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: fc.constantFrom('\u0000', '\u0001', '\u0004', '\u0005', 'a', 'é', '😀'), minLength: 60, maxLength: 90 }));
const id = fc.oneof(fc.integer({ min: 1, max: 2 ** 31 }), fc.constantFrom(1, 2 ** 32, 2 ** 53 - 2, MAX_PLANT_ID));
// The three shapes keys of such databases have: `[sandbox, id]`, `[…tag, id]`, `[…tag, sandbox, id]`.
const keyOf: fc.Arbitrary<Key[]> = fc.oneof(
  fc.tuple(sandboxName, id),
  fc.tuple(tag, id).map(([t, n]) => [...tagPart(t), n]),
  fc.tuple(tag, sandboxName, id).map(([t, sandbox, n]) => [...tagPart(t), sandbox, n]),
);

describe('disk keys read back as their id (id-keys.ts)', () => {
  let dir: ReturnType<typeof tempDir>;
  let root: RootDatabase;
  let asIds: Database<string, Key[]>;
  let whole: Database<string, Key[]>;

  before(() => {
    dir = tempDir('plant-store-id-keys-');
    root = open({ path: dir.path, maxDbs: 4 });
    asIds = root.openDB<string, Key[]>({ name: 'keys', ...ID_KEYS });
    // The same database, opened with lmdb-js's own key encoding.
    whole = root.openDB<string, Key[]>({ name: 'keys' });
  });

  after(async () => {
    await root.close();
    dir.remove();
  });

  it('reads every key shape back as its last element, written in the bytes the default encoding reads whole', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(keyOf, { minLength: 1, maxLength: 20, selector: (key) => JSON.stringify(key) }), async (keys) => {
        await root.transaction(() => {
          for (const key of [...whole.getKeys()]) void whole.remove(key);
          for (const key of keys) void asIds.put(key, 'x');
        });
        const written = [...whole.getKeys()];
        // What the default encoding reads is what was written, so the bytes are its own.
        expect(written.map((key) => JSON.stringify(key)).sort()).to.deep.equal(keys.map((key) => JSON.stringify(key)).sort());
        // In key order, the id-keyed view reads each of those keys as its id.
        expect([...asIds.getRange()].map(({ key }) => idOf(key))).to.deep.equal(written.map((key) => key.at(-1)));
        for (const key of keys) expect(asIds.get(key)).to.equal('x', JSON.stringify(key));
      }),
      { numRuns: 200 },
    );
  });
});
