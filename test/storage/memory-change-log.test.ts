import { expect } from 'chai';
import { MemoryChangeLogs } from '../../adapters/storage/memory/memory-change-log.js';
import { plantCreated } from '../../core/index.js';

/** What a sandbox's log holds in memory, retained or not (white-box: the count retention must bring down). */
const held = (logs: MemoryChangeLogs, sandbox: string): number => (logs as unknown as { logs: Map<string, { entries: unknown[] }> }).logs.get(sandbox)?.entries.length ?? 0;

describe('memory storage: the change log lets go of what retention forgets', () => {
  it('a small sandbox whose every change is pruned holds none of them; a large one is compacted; both go on', async () => {
    const logs = new MemoryChangeLogs();
    const before = await logs.of('small').open(undefined);
    for (let id = 1; id <= 10; id++) logs.record('small', plantCreated({ id, name: `p${id}` }, 'small'));
    for (let id = 1; id <= 200; id++) logs.record('large', plantCreated({ id, name: `p${id}` }, 'large'));
    expect([held(logs, 'small'), held(logs, 'large')]).to.deep.equal([10, 200]);
    expect(await logs.pruneBefore(Date.now() + 1, 1_000)).to.equal(210);
    expect([held(logs, 'small'), held(logs, 'large')], 'entries still held after all were pruned').to.deep.equal([0, 0]);
    // A cursor from before the pruned changes is told it missed them.
    expect((await logs.of('small').open(before.reader.position)).reset, 'a cursor from before the pruned changes').to.equal(true);
    // A follower from now on gets the next change, after the emptied log.
    const now = await logs.of('small').open(undefined);
    logs.record('small', plantCreated({ id: 11, name: 'p11' }, 'small'));
    expect((await now.reader.next(10)).map((change) => change.event.data.id)).to.deep.equal([11]);
    expect(held(logs, 'small')).to.equal(1);
  });
});
