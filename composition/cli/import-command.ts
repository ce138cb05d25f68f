import { createReadStream, statSync, type ReadStream } from 'node:fs';
import { readPlantFile } from '../../adapters/files/plant-file-reader.js';
import { utf8Chunks } from '../../adapters/files/utf8-chunks.js';
import { splitCommandArgs } from './command-args.js';
import { ConfigError } from '../config/config-error.js';
import { configFrom } from '../config/parse-config.js';
import { ImportProgress } from './import-progress.js';
import { importPlants } from './plant-import.js';
import { openStorage } from '../store/storage.js';
import { sandboxPlants } from './sandbox-arg.js';

export const IMPORT_USAGE = 'plant-store import [FILE|-] [--sandbox NAME] [settings]          add plants (to the default sandbox, or NAME) from JSON Lines, a JSON array or a json-server db.json (default: standard input)';

/**
 * `plant-store import`: streams a plants file into the configured storage. Invalid entries
 * are reported on standard error by line number, the summary goes to standard output.
 * Returns the exit status: 0 when every entry was created or skipped, 1 when any was invalid.
 */
export async function importCommand(argv: readonly string[]): Promise<number> {
  const args = splitCommandArgs(argv, ['sandbox']);
  if (args.positionals.length > 1) throw new ConfigError(`import reads one file; unexpected "${args.positionals[1]}"`);
  const file = args.positionals[0] ?? '-';
  const { storage } = configFrom(args.settings, process.env);
  if (storage === undefined) throw new ConfigError('import needs disk or mongodb storage: memory storage lives only inside a running server');

  let input: NodeJS.ReadableStream;
  let size: number | undefined;
  let fileStream: ReadStream | undefined;
  if (file === '-') input = process.stdin;
  else {
    size = sizeOf(file);
    input = fileStream = createReadStream(file);
  }
  const source = file === '-' ? 'standard input' : file;

  const opened = await openStorage(storage);
  let plants;
  try {
    plants = sandboxPlants(opened, args.own.get('sandbox'));
  } catch (error) {
    await opened.close();
    throw error;
  }
  const progress = ImportProgress.wanted(process.stderr, size) ? new ImportProgress(process.stderr, size, () => fileStream!.bytesRead) : undefined;
  const started = performance.now();
  try {
    const counts = await importPlants(readPlantFile(utf8Chunks(input as AsyncIterable<Buffer>)), plants, {
      onInvalid: (line, message) => {
        progress?.finish();
        process.stderr.write(`${source}:${line}: ${message}\n`);
      },
      ...(progress && { onProgress: (counts) => progress.update(counts) }),
    });
    progress?.finish();
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(
      `plant-store import: ${counts.created} created, ${counts.skipped} skipped (id already taken), ${counts.invalid} invalid, from ${source} into ${opened.description} in ${seconds.toFixed(1)} s\n`,
    );
    return counts.invalid === 0 ? 0 : 1;
  } finally {
    progress?.finish();
    await opened.close();
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch (error) {
    throw new Error(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
