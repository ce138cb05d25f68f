import { expect } from 'chai';
import { ErrorCode } from '../../core/index.js';
import { withinDeadline, withinTime } from '../../adapters/storage/storage-unavailable.js';
import { expectStoreError } from '../support/expect-error.js';

const never = () => new Promise<never>(() => {});
const late = () => new Error('no answer in time');

const unavailable = (promise: Promise<unknown>) => expectStoreError(promise, ErrorCode.StorageUnavailable);

describe('storage calls under a deadline (storage-unavailable.ts)', () => {
  for (const [name, run] of [
    ['withinTime', <T>(ms: number, call: () => Promise<T>) => withinTime(ms, late, call)],
    ['withinDeadline', <T>(ms: number, call: () => Promise<T>) => withinDeadline(ms, late, () => call())],
  ] as const) {
    describe(name, () => {
      it('answers what the call answers in time', async () => {
        expect(await run(1000, async () => 42)).to.equal(42);
      });

      it('a call that never settles fails as storage unavailable at the deadline, the cause kept', async () => {
        const started = Date.now();
        const error = await unavailable(run(50, never));
        expect((error.cause as Error).message).to.equal('no answer in time');
        expect(Date.now() - started).to.be.within(40, 1000);
      });

      it('a call that rejects or throws fails as storage unavailable, the cause kept', async () => {
        expect((await unavailable(run(1000, () => Promise.reject(new Error('engine'))))).cause).to.have.property('message', 'engine');
        const thrown = await unavailable(
          run(1000, () => {
            throw new Error('sync');
          }),
        );
        expect((thrown.cause as Error).message).to.equal('sync');
      });
    });
  }

  it('withinDeadline aborts the call’s signal at the deadline, with the deadline’s error', async () => {
    let signal: AbortSignal | undefined;
    await unavailable(
      withinDeadline(30, late, (given) => {
        signal = given;
        return never();
      }),
    );
    expect(signal?.aborted).to.equal(true);
    expect((signal?.reason as Error).message).to.equal('no answer in time');
  });
});
