import { expect } from 'chai';
import { ImportProgress, PROGRESS_MIN_BYTES } from '../../composition/cli/import-progress.js';

/** A stand-in for process.stderr: whether it is a terminal, and what was written to it. */
function terminal(isTTY: boolean): NodeJS.WriteStream & { written: string[] } {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) > 0 } as unknown as NodeJS.WriteStream & { written: string[] };
}

describe('import progress bar', () => {
  it('is drawn only on a terminal, for an input of known, large size', () => {
    expect(ImportProgress.wanted(terminal(true), PROGRESS_MIN_BYTES)).to.equal(true);
    expect(ImportProgress.wanted(terminal(true), PROGRESS_MIN_BYTES - 1)).to.equal(false);
    expect(ImportProgress.wanted(terminal(true), undefined)).to.equal(false);
    expect(ImportProgress.wanted(terminal(false), PROGRESS_MIN_BYTES * 10)).to.equal(false);
  });

  it('shows the share of bytes read and the plants read, redrawn in place, then cleared', () => {
    const out = terminal(true);
    const progress = new ImportProgress(out, 1000, () => 450);
    progress.update({ created: 40, skipped: 3, invalid: 1 });
    progress.update({ created: 41, skipped: 3, invalid: 1 }); // within 200 ms: not redrawn
    expect(out.written).to.deep.equal([`\r[${'#'.repeat(14)}${'.'.repeat(16)}]  45% 44 plants read`]);
    progress.finish();
    expect(out.written[1]).to.equal('\r\x1b[2K');
  });
});
