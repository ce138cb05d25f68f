import { MongoPlantRepository } from '../../adapters/storage/mongo/mongo-plant-repository.js';
import { sandboxRegistryContract } from './sandbox-registry-contract.js';
import { TEST_DATABASE_NAME, dropCollection, requireDatabase, uniqueCollectionName, type TestDatabase } from '../support/test-database.js';

describe('MongoDB sandbox registry', () => {
  let database: TestDatabase;
  before(async function () {
    database = await requireDatabase(this);
  });

  // Durable and shared: a second repository on the same collections sees what the first recorded.
  sandboxRegistryContract(
    'mongo',
    async () => {
      const collectionName = uniqueCollectionName();
      const open = () => MongoPlantRepository.connect(database.uri, { databaseName: TEST_DATABASE_NAME, collectionName });
      const repositories = [await open()];
      return {
        registry: repositories[0]!.sandboxes!,
        again: async () => {
          const other = await open();
          repositories.push(other);
          return other.sandboxes!;
        },
        close: async () => {
          try {
            for (const suffix of ['', '_sandbox_grants']) await dropCollection(database.uri, `${collectionName}${suffix}`);
          } finally {
            await Promise.all(repositories.map((repository) => repository.close()));
          }
        },
      };
    },
    { durable: true },
  );
});
