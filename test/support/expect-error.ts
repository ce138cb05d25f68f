import { expect } from 'chai';
import { PlantStoreError } from '../../core/index.js';

/** Awaits a promise that must reject with a PlantStoreError of `code`; returns the error. */
export async function expectStoreError(promise: Promise<unknown>, code: number): Promise<PlantStoreError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(PlantStoreError);
    expect((error as PlantStoreError).code).to.equal(code);
    return error as PlantStoreError;
  }
  expect.fail(`expected a PlantStoreError ${code}, but the call succeeded`);
}
