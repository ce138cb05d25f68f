import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { MongoPlantRepository, databaseNameIn } from '../../adapters/storage/mongo/mongo-plant-repository.js';
import { FerretDb } from './ferretdb.js';
import { FERRETDB_VERSION, ferretDbBinary } from './ferretdb-build.js';
import type { StorageFactory } from '../storage/storage-contract.js';
import { inCi } from './in-ci.cjs';

/**
 * How the tests get a MongoDB: `MONGODB_URI` when set, otherwise a throwaway FerretDB
 * (built once into .cache/, run on SQLite in a temporary directory, stopped at exit).
 * When neither can be had the MongoDB tests are skipped with one line saying how to enable
 * them — or, under CI=true, fail, so a CI run cannot go green without them.
 */

/** Database for test collections when the URI names none; never the production default. */
export const TEST_DATABASE_NAME = 'plant_store_test';
// Room for a first run that builds FerretDB (1–2 minutes on a cold Go cache) before the first test.
const SETUP_TIMEOUT_MS = 11 * 60_000;

export interface TestDatabase {
  readonly uri: string;
  /** For messages: `MONGODB_URI`, or which FerretDB on which port. Never the URI itself. */
  readonly description: string;
}

let shared: Promise<TestDatabase> | undefined;

/** The database shared by this test run; rejects with a one-line reason when there is none. */
export function sharedDatabase(): Promise<TestDatabase> {
  shared ??= (async () => {
    const uri = process.env['MONGODB_URI'];
    if (uri === undefined || uri === '') {
      const server = await FerretDb.launch(await ferretDbBinary());
      return { uri: server.uri, description: `FerretDB ${FERRETDB_VERSION} on port ${server.port}` };
    }
    await pingOrExplain(uri);
    return { uri, description: 'MONGODB_URI' };
  })();
  return shared;
}

async function pingOrExplain(uri: string): Promise<void> {
  let client: MongoClient | undefined;
  try {
    client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
    await client.db('admin').command({ ping: 1 });
  } catch (error) {
    // The driver's message, not the URI: it may hold credentials.
    throw new Error(`MONGODB_URI is set but no database answers there (${(error as Error).message})`);
  } finally {
    await client?.close();
  }
}

/** For a `before` hook: the shared database, or the suite skipped (failed under CI). */
export async function requireDatabase(context: Mocha.Context): Promise<TestDatabase> {
  context.timeout(SETUP_TIMEOUT_MS);
  try {
    return await sharedDatabase();
  } catch (error) {
    return unavailable(context, error);
  }
}

/**
 * For a `before` hook of fault tests: a FerretDB of the caller's own, to stop and start at
 * will (MONGODB_URI does not apply: the test must control the process). dispose() it after.
 */
export async function requireDedicatedFerretDb(context: Mocha.Context): Promise<FerretDb> {
  context.timeout(SETUP_TIMEOUT_MS);
  try {
    return await FerretDb.launch(await ferretDbBinary());
  } catch (error) {
    return unavailable(context, error);
  }
}

let skipNoticeShown = false;

const howToEnable = 'set MONGODB_URI to a reachable MongoDB, or leave it unset and install Go (https://go.dev/dl/) so the tests can build FerretDB';

function unavailable(context: Mocha.Context, error: unknown): never {
  const reason = error instanceof Error ? error.message : String(error);
  if (inCi) throw new Error(`MongoDB tests cannot run under CI: ${reason}. To run them, ${howToEnable}.`);
  if (!skipNoticeShown) {
    skipNoticeShown = true;
    process.stderr.write(`MongoDB tests skipped: ${reason}. To run them, ${howToEnable}.\n`);
  }
  context.skip();
}

export interface MongoFactoryOptions {
  readonly timeoutMS?: number;
}

/**
 * A StorageFactory of empty repositories on the database `uri()` names at call time: each
 * gets a collection of its own, unique to this run, dropped again by close() with its change log.
 */
export function mongoStorageFactory(uri: () => string, options: MongoFactoryOptions = {}): StorageFactory {
  return async () => {
    const collectionName = uniqueCollectionName();
    const repository = await MongoPlantRepository.connect(uri(), { databaseName: TEST_DATABASE_NAME, collectionName, ...options });
    return {
      repository,
      close: async () => {
        try {
          await dropCollection(uri(), collectionName);
          await dropCollection(uri(), `${collectionName}_changes`);
        } finally {
          await repository.close();
        }
      },
    };
  };
}

let collections = 0;

export function uniqueCollectionName(): string {
  return `test_plants_${process.pid}_${++collections}_${randomBytes(3).toString('hex')}`;
}

/** The database test repositories on `uri` use: the URI's own, else TEST_DATABASE_NAME. */
export function testDatabaseName(uri: string): string {
  return databaseNameIn(uri) ?? TEST_DATABASE_NAME;
}

/** Runs `work` on a short-lived client of its own for `uri`, closed afterwards. */
async function withClient(uri: string, work: (client: MongoClient) => Promise<unknown>): Promise<void> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
  try {
    await work(client);
  } finally {
    await client.close();
  }
}

/** Drops a test collection. */
export function dropCollection(uri: string, collectionName: string): Promise<void> {
  return withClient(uri, (client) => client.db(testDatabaseName(uri)).dropCollection(collectionName));
}

/** Drops a whole test database, authenticated as `uri` says (not through a URI rewritten to name it). */
export function dropDatabase(uri: string, databaseName: string): Promise<void> {
  return withClient(uri, (client) => client.db(databaseName).dropDatabase());
}
