import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PlantRepository } from '../../core/index.js';
import { splitCommandArgs } from './command-args.js';
import { ConfigError } from '../config/config-error.js';
import { configFrom } from '../config/parse-config.js';
import { openStorage } from '../store/storage.js';
import { plantPages } from './plant-pages.js';
import { sandboxPlants } from './sandbox-arg.js';

export const EXPORT_USAGE = 'plant-store export [--output FILE] [--sandbox NAME] [settings]   every plant (of the default sandbox, or NAME) as JSON Lines, by ascending id (default: standard output)';

/**
 * `plant-store export`: pages through the configured storage by id and writes one JSON line
 * per plant. Memory holds one page at a time. Disk storage is opened read-only and without
 * its lock, so a backup can be taken while the server runs. Returns the exit status.
 */
export async function exportCommand(argv: readonly string[]): Promise<number> {
  const args = splitCommandArgs(argv, ['output', 'sandbox']);
  if (args.positionals.length > 0) throw new ConfigError(`export writes to --output FILE or standard output; unexpected "${args.positionals[0]}"`);
  const { storage } = configFrom(args.settings, process.env);
  if (storage === undefined) throw new ConfigError('export needs disk or mongodb storage: memory storage lives only inside a running server');
  const output = args.own.get('output');
  const opened = await openStorage('dataDir' in storage ? { ...storage, readOnly: true } : storage);
  let count = 0;
  try {
    const lines = Readable.from(plantLines(sandboxPlants(opened, args.own.get('sandbox')), (n) => (count += n)));
    await pipeline(lines, output === undefined ? process.stdout : createWriteStream(output));
  } finally {
    await opened.close();
  }
  process.stderr.write(`plant-store export: ${count} ${count === 1 ? 'plant' : 'plants'} from ${opened.description} written to ${output ?? 'standard output'}\n`);
  return 0;
}

/** The JSON Lines of every plant, one page of text per chunk. */
async function* plantLines(repository: PlantRepository, counted: (n: number) => void): AsyncGenerator<string> {
  for await (const page of plantPages(repository)) {
    counted(page.length);
    yield page.map((plant) => JSON.stringify(plant)).join('\n') + '\n';
  }
}
