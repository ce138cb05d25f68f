import { expect } from 'chai';
import { MemoryChangeLogs } from '../../adapters/storage/memory/memory-change-log.js';

type Columns = Record<'sequences' | 'ats' | 'ids' | 'created', unknown[]>;
/** What a sandbox's log holds in memory, retained or not, in every column (white-box: the count retention must bring down). */
const held = (logs: MemoryChangeLogs, sandbox: string): number => {
  const log = (logs as unknown as { logs: Map<string, Columns> }).logs.get(sandbox);
  if (log === undefined) return 0;
  const lengths = new Set([log.sequences.length, log.ats.length, log.ids.length, log.created.length]);
  expect(lengths.size, 'columns of one length').to.equal(1);
  return log.sequences.length;
};

describe('memory storage: the change log lets go of what retention forgets', () => {
  it('a small sandbox whose every change is pruned holds none of them; a large one is compacted; both go on', async () => {
    const logs = new MemoryChangeLogs();
    const [small, large] = [logs.recorderOf('small'), logs.recorderOf('large')];
    const before = await logs.of('small').open(undefined);
    for (let id = 1; id <= 10; id++) small(id, Object.freeze({ name: `p${id}` }));
    for (let id = 1; id <= 200; id++) large(id, Object.freeze({ name: `p${id}` }));
    expect([held(logs, 'small'), held(logs, 'large')]).to.deep.equal([10, 200]);
    expect(await logs.pruneBefore(Date.now() + 1, 1_000)).to.equal(210);
    expect([held(logs, 'small'), held(logs, 'large')], 'entries still held after all were pruned').to.deep.equal([0, 0]);
    // A cursor from before the pruned changes is told it missed them.
    expect((await logs.of('small').open(before.reader.position)).reset, 'a cursor from before the pruned changes').to.equal(true);
    // A follower from now on gets the next change, after the emptied log.
    const now = await logs.of('small').open(undefined);
    small(11, Object.freeze({ name: 'p11' }));
    expect((await now.reader.next(10)).map((change) => change.event.data.id)).to.deep.equal([11]);
    expect(held(logs, 'small')).to.equal(1);
  });

  it('a change is read back as the event it was: created with its fields (a tag only when it has one), deleted with its id; the default sandbox\'s without a sandbox', async () => {
    const logs = new MemoryChangeLogs();
    const [named, plain] = [await logs.of('garden').open(undefined), await logs.of('default').open(undefined)];
    const garden = logs.recorderOf('garden');
    garden(1, Object.freeze({ name: 'fern', tag: 'shade' }));
    garden(2, Object.freeze({ name: 'moss' }));
    garden(1, undefined);
    logs.recorderOf('default')(3, Object.freeze({ name: 'ivy' }));
    expect((await named.reader.next(10)).map((change) => change.event)).to.deep.equal([
      { type: 'plant.created', data: { id: 1, name: 'fern', tag: 'shade' }, sandbox: 'garden' },
      { type: 'plant.created', data: { id: 2, name: 'moss' }, sandbox: 'garden' },
      { type: 'plant.deleted', data: { id: 1 }, sandbox: 'garden' },
    ]);
    const [change] = await plain.reader.next(10);
    expect(change!.event).to.deep.equal({ type: 'plant.created', data: { id: 3, name: 'ivy' } });
    expect(Object.isFrozen(change!.event) && Object.isFrozen(change!.event.data), 'frozen, as handed to every follower').to.equal(true);
  });

  it("a sandbox's recorder, made once, still writes to its log after the sandbox was dropped (a purged sandbox used again)", async () => {
    const logs = new MemoryChangeLogs();
    const record = logs.recorderOf('garden');
    record(1, Object.freeze({ name: 'fern' }));
    logs.drop('garden');
    const follower = await logs.of('garden').open(undefined);
    record(2, Object.freeze({ name: 'moss' }));
    expect((await follower.reader.next(10)).map((change) => change.event.data.id)).to.deep.equal([2]);
    expect(held(logs, 'garden')).to.equal(1);
  });
});
