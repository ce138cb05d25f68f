import { expect } from 'chai';
import { eventually } from './eventually.js';

describe('test support: eventually()', () => {
  it('resolves with the first answer that is not undefined, null or false, sync or async', async () => {
    let tries = 0;
    expect(await eventually(() => (++tries === 3 ? 'ready' : false), { intervalMs: 1 })).to.equal('ready');
    expect(await eventually(async () => (++tries === 5 ? 0 : undefined), { intervalMs: 1 })).to.equal(0);
  });

  it('gives up after the timeout, saying what it waited for, the last answer and the context', async () => {
    const failure = await eventually(async () => null, { what: 'the receiver to see 3 hooks', context: async () => 'received: 2', timeoutMs: 50 }).catch((error: Error) => error);
    expect(failure).to.be.an('error');
    expect((failure as Error).message).to.match(/^gave up after \d+ ms \(\d+ tries, last answer null\) waiting for the receiver to see 3 hooks\nreceived: 2$/);
  });

  it('names the probe by its code when not told what it waits for', async () => {
    const failure = await eventually(() => 1 + 1 === 3, { timeoutMs: 30 }).catch((error: Error) => error);
    expect((failure as Error).message).to.include('waiting for () => 1 + 1 === 3');
  });

  it('does not wait past the timeout for a probe that never answers', async () => {
    const started = performance.now();
    const failure = await eventually(() => new Promise(() => {}), { timeoutMs: 50 }).catch((error: Error) => error);
    expect((failure as Error).message).to.match(/^gave up after/);
    expect(performance.now() - started).to.be.below(1000);
  });

  it('fails at once when the probe throws', async () => {
    const started = performance.now();
    const failure = await eventually(
      async () => {
        throw new Error('the server is gone');
      },
      { timeoutMs: 5000 },
    ).catch((error: Error) => error);
    expect((failure as Error).message).to.equal('the server is gone');
    expect(performance.now() - started).to.be.below(1000);
  });
});
