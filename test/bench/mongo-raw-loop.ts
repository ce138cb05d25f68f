/**
 * The database's own speed, for comparison with the service on MongoDB storage: the same
 * reads and inserts as W1 and W2, issued straight through the MongoDB driver by
 * `concurrency` loops, each waiting for its answer before the next call (as an HTTP
 * connection of the load generator does). Same collection, same projection, same write
 * concern as the repository (majority, journaled). Runs as its own process; the runner
 * drives it over IPC.
 *
 * Variables: MONGODB_URI, MONGODB_DB (the database, as the server is given it), BENCH_MONGODB_COLLECTION.
 */
import { MongoClient } from 'mongodb';
import { durableWrite } from '../../adapters/storage/mongo/mongo-plant-repository.js';
import { plantProjection, toDocument, type PlantDocument } from '../../adapters/storage/mongo/plant-document.js';
import { LIST_LIMIT } from './load.js';
import { cpuSeconds } from './process-cpu.js';
import { newPlant } from './seed-plants.js';
import { quantile } from './stats.js';

export type RawCommand =
  | { type: 'run'; workload: 'W1' | 'W2'; seconds: number; concurrency: number }
  | { type: 'stop' };

export type RawAnswer =
  | { type: 'ready' }
  | { type: 'result'; operations: number; errors: number; seconds: number; cpuSeconds: number; p50Ms: number; p99Ms: number }
  | { type: 'failed'; message: string };

// The service's inserts take ids from 10,000,000 up; these never meet them.
let nextId = 500_000_000;

const tell = (answer: RawAnswer) => process.send?.(answer);

async function main(): Promise<void> {
  const uri = process.env['MONGODB_URI'];
  const database = process.env['MONGODB_DB'];
  const collectionName = process.env['BENCH_MONGODB_COLLECTION'];
  if (!uri || !database || !collectionName) throw new Error('MONGODB_URI, MONGODB_DB and BENCH_MONGODB_COLLECTION are required');
  const client = await new MongoClient(uri, { appName: 'plant-store-bench-raw' }).connect();
  const collection = client.db(database).collection<PlantDocument>(collectionName, { writeConcern: durableWrite });

  const operations: Record<'W1' | 'W2', () => Promise<unknown>> = {
    W1: () => collection.find({ _id: { $gt: 0 } }, { sort: { _id: 1 }, limit: LIST_LIMIT, batchSize: LIST_LIMIT, projection: plantProjection }).toArray(),
    W2: () => collection.insertOne(toDocument(newPlant(nextId++))),
  };

  process.on('message', async (command: RawCommand) => {
    if (command.type === 'stop') {
      await client.close().catch(() => {});
      process.exit(0);
    }
    const operation = operations[command.workload];
    const latencies: number[] = [];
    let errors = 0;
    const cpuBefore = cpuSeconds(process.pid);
    const started = performance.now();
    const deadline = started + command.seconds * 1000;
    const loop = async () => {
      while (performance.now() < deadline) {
        const sent = performance.now();
        try {
          await operation();
          latencies.push(performance.now() - sent);
        } catch {
          errors++;
        }
      }
    };
    await Promise.all(Array.from({ length: command.concurrency }, loop));
    const seconds = (performance.now() - started) / 1000;
    tell({
      type: 'result',
      operations: latencies.length,
      errors,
      seconds,
      cpuSeconds: cpuSeconds(process.pid) - cpuBefore,
      p50Ms: quantile(latencies, 0.5),
      p99Ms: quantile(latencies, 0.99),
    });
  });
  process.on('disconnect', () => process.exit(0));
  tell({ type: 'ready' });
}

main().catch((error: unknown) => {
  tell({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
