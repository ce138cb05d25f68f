import { isPlantStoreError, parseNewPlant, type Plant, type PlantRepository } from '../../core/index.js';
import type { PlantFileEntry } from '../../adapters/files/plant-file-reader.js';

export interface ImportCounts {
  created: number;
  /** Plants whose id was already taken: left as they are. */
  skipped: number;
  invalid: number;
}

export interface ImportOptions {
  /** Called for each entry that is not a valid plant, with the same message the API would give. */
  onInvalid(line: number, message: string): void;
  /** Called after each batch with the counts so far (for a progress bar). */
  onProgress?(counts: Readonly<ImportCounts>): void;
  /** Plants per write; default 1000. */
  readonly batchSize?: number;
}

const DEFAULT_BATCH_SIZE = 1000;

/**
 * Validates each entry with the core's plant rules and adds the valid ones in batches: one
 * `addMany` per batch where the storage offers it (one commit), else concurrent `add`s. The
 * next batch is read and validated while the previous one is written; memory holds two
 * batches at most. A storage failure stops the import and is thrown; what was added stays
 * (a re-run skips it).
 */
export async function importPlants(entries: AsyncIterable<PlantFileEntry>, repository: PlantRepository, options: ImportOptions): Promise<ImportCounts> {
  const counts: ImportCounts = { created: 0, skipped: 0, invalid: 0 };
  const size = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const addMany = repository.addMany
    ? (plants: Plant[]) => repository.addMany!(plants)
    : (plants: Plant[]) => Promise.all(plants.map((plant) => repository.add(plant)));
  const write = async (plants: Plant[]) => {
    for (const created of await addMany(plants)) {
      if (created) counts.created++;
      else counts.skipped++;
    }
    options.onProgress?.(counts);
  };

  let batch: Plant[] = [];
  let writing: Promise<void> = Promise.resolve();
  try {
    for await (const entry of entries) {
      const plant = validPlant(entry, counts, options);
      if (plant === undefined) continue;
      batch.push(plant);
      if (batch.length === size) {
        await writing;
        writing = write(batch);
        // Awaited before the next batch or in `finally`; until then a failure must not count as unhandled.
        writing.catch(() => {});
        batch = [];
      }
    }
  } finally {
    // Whatever stopped the reading, the batch being written is waited for (and its error seen).
    await writing;
  }
  if (batch.length > 0) await write(batch);
  return counts;
}

function validPlant(entry: PlantFileEntry, counts: ImportCounts, options: ImportOptions): Plant | undefined {
  if ('problem' in entry) {
    counts.invalid++;
    options.onInvalid(entry.line, entry.problem);
    return undefined;
  }
  try {
    return parseNewPlant(entry.value);
  } catch (error) {
    if (!isPlantStoreError(error)) throw error;
    counts.invalid++;
    options.onInvalid(entry.line, error.message);
    return undefined;
  }
}
