import { expect } from 'chai';
import { MemoryChangeLogs } from '../../adapters/storage/memory/memory-change-log.js';

interface Internals {
  logs: Map<string, { sequences: number[] }>;
  ats: unknown[];
  ids: unknown[];
  created: unknown[];
}
const internals = (logs: MemoryChangeLogs): Internals => logs as unknown as Internals;
/** The changes the storage-wide columns hold in memory, retained or not (white-box: the count retention must bring down). */
const stored = (logs: MemoryChangeLogs): number => {
  const { ats, ids, created } = internals(logs);
  expect(new Set([ats.length, ids.length, created.length]).size, 'columns of one length').to.equal(1);
  return ats.length;
};
/** The change numbers a sandbox's log holds in memory, retained or not. */
const held = (logs: MemoryChangeLogs, sandbox: string): number => internals(logs).logs.get(sandbox)?.sequences.length ?? 0;

describe('memory storage: the change log lets go of what retention forgets', () => {
  it('a small sandbox whose every change is pruned holds none of them, nor does a large one; both go on', async () => {
    const logs = new MemoryChangeLogs();
    const [small, large] = [logs.recorderOf('small'), logs.recorderOf('large')];
    const before = await logs.of('small').open(undefined);
    for (let id = 1; id <= 10; id++) small(id, Object.freeze({ name: `p${id}` }));
    for (let id = 1; id <= 200; id++) large(id, Object.freeze({ name: `p${id}` }));
    expect([held(logs, 'small'), held(logs, 'large'), stored(logs)]).to.deep.equal([10, 200, 210]);
    expect(await logs.pruneBefore(Date.now() + 1, 1_000)).to.equal(210);
    expect([held(logs, 'small'), held(logs, 'large'), stored(logs)], 'entries still held after all were pruned').to.deep.equal([0, 0, 0]);
    // A cursor from before the pruned changes is told it missed them.
    expect((await logs.of('small').open(before.reader.position)).reset, 'a cursor from before the pruned changes').to.equal(true);
    // A follower from now on gets the next change, after the emptied log.
    const now = await logs.of('small').open(undefined);
    small(11, Object.freeze({ name: 'p11' }));
    expect((await now.reader.next(10)).map((change) => change.event.data.id)).to.deep.equal([11]);
    expect([held(logs, 'small'), stored(logs)]).to.deep.equal([1, 1]);
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
    logs.recorderOf('other')(1, Object.freeze({ name: 'ivy' }));
    logs.drop('garden');
    // The dropped change's plant is let go at once; the other sandbox's is kept.
    expect(internals(logs).created).to.deep.equal([undefined, { name: 'ivy' }]);
    const follower = await logs.of('garden').open(undefined);
    record(2, Object.freeze({ name: 'moss' }));
    expect((await follower.reader.next(10)).map((change) => change.event.data.id)).to.deep.equal([2]);
    expect(held(logs, 'garden')).to.equal(1);
  });

  it('pruning in bounded batches over interleaved sandboxes: each forgets only its own pruned changes', async () => {
    const logs = new MemoryChangeLogs();
    const [a, b] = [logs.recorderOf('a'), logs.recorderOf('b')];
    const [fromStartA, fromStartB] = [(await logs.of('a').open(undefined)).reader.position, (await logs.of('b').open(undefined)).reader.position];
    a(1, Object.freeze({ name: 'a1' }));
    b(2, Object.freeze({ name: 'b2' }));
    a(3, Object.freeze({ name: 'a3' }));
    b(4, Object.freeze({ name: 'b4' }));
    a(5, Object.freeze({ name: 'a5' }));
    const [afterA1, afterA3] = (await (await logs.of('a').open(fromStartA)).reader.next(10)).map((change) => change.cursor);
    const idsAfter = async (sandbox: string, cursor: string) => {
      const { reader, reset } = await logs.of(sandbox).open(cursor);
      return { reset, ids: (await reader.next(10)).map((change) => change.event.data.id) };
    };
    expect(await logs.pruneBefore(Date.now() + 1, 2), 'the first two changes, one of each').to.equal(2);
    expect(internals(logs).created.slice(0, 3), 'the pruned plants let go before the columns are compacted').to.deep.equal([undefined, undefined, { name: 'a3' }]);
    expect(await idsAfter('a', afterA1!)).to.deep.equal({ reset: false, ids: [3, 5] });
    expect((await idsAfter('a', fromStartA)).reset, "a cursor from before a's pruned change").to.equal(true);
    expect((await idsAfter('b', fromStartB)).reset, "a cursor from before b's pruned change").to.equal(true);
    expect(await logs.pruneBefore(Date.now() + 1, 2)).to.equal(2);
    expect((await idsAfter('a', afterA1!)).reset, 'a3 is pruned now').to.equal(true);
    expect(await idsAfter('a', afterA3!)).to.deep.equal({ reset: false, ids: [5] });
    expect(await logs.pruneBefore(Date.now() + 1, 2)).to.equal(1);
    expect([held(logs, 'a'), held(logs, 'b'), stored(logs)]).to.deep.equal([0, 0, 0]);
  });

  it('after pruning in part (the columns compacted) and a drop, the sandbox left reads its own events, names and tags, from its cursor', async () => {
    const logs = new MemoryChangeLogs();
    const [a, b] = [logs.recorderOf('a'), logs.recorderOf('b')];
    const [fromStartA, fromStartB] = [(await logs.of('a').open(undefined)).reader.position, (await logs.of('b').open(undefined)).reader.position];
    for (let id = 1; id <= 200; id++) {
      if (id % 2 === 1) a(id, Object.freeze({ name: `p${id}` }));
      else b(id, Object.freeze({ name: `p${id}`, tag: `t${id % 3}` }));
    }
    const ofB = await (await logs.of('b').open(fromStartB)).reader.next(1_000);
    expect(ofB.map((change) => change.event.data.id)).to.deep.equal(Array.from({ length: 100 }, (_, i) => 2 * i + 2));
    const at150 = ofB[74]!.cursor;
    expect(await logs.pruneBefore(Date.now() + 1, 150)).to.equal(150);
    expect(stored(logs), 'compacted once more than half was pruned').to.equal(50);
    logs.drop('a');
    expect(internals(logs).created.filter((created) => created !== undefined), "only b's plants are held").to.have.length(25);
    const { reader, reset } = await logs.of('b').open(at150);
    expect(reset).to.equal(false);
    expect((await reader.next(1_000)).map((change) => change.event)).to.deep.equal(
      Array.from({ length: 25 }, (_, i) => 152 + 2 * i).map((id) => ({ type: 'plant.created', data: { id, name: `p${id}`, tag: `t${id % 3}` }, sandbox: 'b' })),
    );
    expect((await logs.of('a').open(fromStartA)).reset, "a's cursor after its drop").to.equal(true);
  });
});
