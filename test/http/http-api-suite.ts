import type { StorageFactory } from '../storage/storage-contract.js';
import { authAndOrderSuite } from './auth-and-order.js';
import { plantCrudSuite } from './plant-crud.js';
import { plantListingSuite } from './plant-listing.js';
import { plantValidationSuite } from './plant-validation.js';

/**
 * The HTTP API contract, against a real server on an ephemeral loopback port
 * called with a real HTTP client. Every storage backend runs it unchanged: `storage`
 * gives a fresh, empty repository per test, and nothing here knows which backend it is.
 */
export function httpApiSuite(storageName: string, storage: StorageFactory): void {
  describe(`HTTP API on ${storageName} storage`, () => {
    authAndOrderSuite(storage);
    plantCrudSuite(storage);
    plantValidationSuite(storage);
    plantListingSuite(storage);
  });
}
