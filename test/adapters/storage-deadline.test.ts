import { expect } from 'chai';
import { ErrorCode, PlantStoreError } from '../../core/index.js';
import { withinDeadline, withinTime } from '../../adapters/storage/storage-unavailable.js';

const never = () => new Promise<never>(() => {});
const late = () => new Error('no answer in time');

async function refusal(promise: Promise<unknown>): Promise<PlantStoreError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(PlantStoreError);
    return error as PlantStoreError;
  }
  throw new Error('expected a refusal');
}

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
        const error = await refusal(run(50, never));
        expect(error.code).to.equal(ErrorCode.StorageUnavailable);
        expect((error.cause as Error).message).to.equal('no answer in time');
        expect(Date.now() - started).to.be.within(40, 1000);
      });

      it('a call that fails, at once or later, fails as storage unavailable', async () => {
        expect((await refusal(run(1000, () => Promise.reject(new Error('engine'))))).code).to.equal(ErrorCode.StorageUnavailable);
        const thrown = await refusal(
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
    await refusal(
      withinDeadline(30, late, (given) => {
        signal = given;
        return never();
      }),
    );
    expect(signal?.aborted).to.equal(true);
    expect((signal?.reason as Error).message).to.equal('no answer in time');
  });
});
