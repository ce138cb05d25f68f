import { randomBytes } from 'node:crypto';
import { MongoPlantRepository } from '../../adapters/storage/mongo/mongo-plant-repository.js';
import { withDatabase } from '../support/mongo-uri.js';
import { dropDatabase, requireDatabase, type TestDatabase } from '../support/test-database.js';
import { outboxContract } from './outbox-contract.js';

describe('MongoDB outbox', () => {
  let database: TestDatabase;
  before(async function () {
    database = await requireDatabase(this);
  });

  // A database of its own per test: the outbox's leases and gone endpoints are collections beside the plants.
  outboxContract(
    'mongodb',
    async () => {
      const name = `plant_store_outbox_${randomBytes(4).toString('hex')}`;
      const uri = withDatabase(database.uri, name);
      const open: MongoPlantRepository[] = [];
      const connect = async () => {
        const repository = await MongoPlantRepository.connect(uri);
        open.push(repository);
        return { repository, outbox: repository.outbox };
      };
      const closeAll = () => Promise.all(open.splice(0).map((repository) => repository.close()));
      return {
        first: await connect(),
        another: connect,
        reopen: async () => {
          await closeAll();
          return connect();
        },
        close: async () => {
          await closeAll();
          await dropDatabase(database.uri, name);
        },
      };
    },
    { severalProcesses: true, durable: true, sandboxes: true },
  );
});
