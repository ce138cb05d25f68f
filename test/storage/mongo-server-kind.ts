import { MongoClient } from 'mongodb';

/**
 * Whether the database at `uri` is FerretDB (its buildInfo names its version), which applies
 * no conditional update as one step (see docs/storage.md, On FerretDB): tests that race such
 * updates run only on MongoDB itself, their atomicity proven on stand-ins elsewhere.
 */
export async function isFerretDb(uri: string): Promise<boolean> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
  try {
    return typeof (await client.db('admin').command({ buildInfo: 1 }))['ferretdbVersion'] === 'string';
  } finally {
    await client.close();
  }
}
