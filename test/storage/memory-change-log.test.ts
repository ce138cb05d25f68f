import { expect } from 'chai';
import { MemoryChangeLogs } from '../../adapters/storage/memory/memory-change-log.js';
import { plantCreated } from '../../core/index.js';

/** What a sandbox's log holds in memory, retained or not (white-box: the count retention must bring down). */
const held = (logs: MemoryChangeLogs, sandbox: string): number => (logs as unknown as { logs: Map<string, { entries: unknown[] }> }).logs.get(sandbox)?.entries.length ?? 0;

describe('memory storage: the change log lets go of what retention forgets', () => {
  it('a small sandbox whose every change is pruned holds none of them; a large one is compacted', async () => {
    const logs = new MemoryChangeLogs();
    for (let id = 1; id <= 10; id++) logs.record('small', plantCreated({ id, name: `p${id}` }, 'small'));
    for (let id = 1; id <= 200; id++) logs.record('large', plantCreated({ id, name: `p${id}` }, 'large'));
    expect([held(logs, 'small'), held(logs, 'large')]).to.deep.equal([10, 200]);
    expect(await logs.pruneBefore(Date.now() + 1, 1_000)).to.equal(210);
    expect([held(logs, 'small'), held(logs, 'large')], 'entries still held after all were pruned').to.deep.equal([0, 0]);
    // A cursor from before is told it missed changes, and the log goes on from where it was.
    const log = logs.of('small');
    logs.record('small', plantCreated({ id: 11, name: 'p11' }, 'small'));
    const { reader, reset } = await log.open(undefined);
    expect(reset).to.equal(false);
    expect(await reader.next(10)).to.deep.equal([]);
    expect(held(logs, 'small')).to.equal(1);
  });
});
