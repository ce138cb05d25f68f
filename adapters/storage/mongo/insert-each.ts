import { MongoBulkWriteError, type Collection, type Document, type OptionalUnlessRequiredId } from 'mongodb';

/**
 * One unordered insertMany: every document is tried, and those whose `_id` is taken are
 * refused by the unique index alone (an atomic check, on MongoDB and its stand-ins alike).
 * Returns, per document, whether it went in; any other failure is thrown.
 */
export async function insertEach<T extends Document>(collection: Collection<T>, documents: readonly OptionalUnlessRequiredId<T>[]): Promise<boolean[]> {
  const inserted = documents.map(() => true);
  if (documents.length === 0) return inserted;
  try {
    await collection.insertMany([...documents], { ordered: false });
  } catch (error) {
    if (!(error instanceof MongoBulkWriteError)) throw error;
    const failures = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
    if (failures.some((failure) => failure.code !== 11000)) throw error;
    for (const failure of failures) inserted[failure.index] = false;
  }
  return inserted;
}
