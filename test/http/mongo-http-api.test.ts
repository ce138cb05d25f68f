import { mongoStorageFactory, requireDatabase, type TestDatabase } from '../support/test-database.js';
import { httpApiSuite } from './http-api-suite.js';

describe('HTTP API on MongoDB storage', () => {
  let database: TestDatabase;
  before(async function () {
    database = await requireDatabase(this);
  });
  // FerretDB reads the whole collection for each create's conditional write of the change log
  // (docs/storage.md): seeding 1,001 plants 100 at a time can take longer than 5 s a call there.
  httpApiSuite('mongo', mongoStorageFactory(() => database.uri, { timeoutMS: 15_000 }));
});
