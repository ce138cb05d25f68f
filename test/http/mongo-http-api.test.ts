import { mongoStorageFactory, requireDatabase, type TestDatabase } from '../support/test-database.js';
import { httpApiSuite } from './http-api-suite.js';

describe('HTTP API on MongoDB storage', () => {
  let database: TestDatabase;
  before(async function () {
    database = await requireDatabase(this);
  });
  httpApiSuite('mongo', mongoStorageFactory(() => database.uri));
});
