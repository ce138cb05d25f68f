import { ConfigError } from '../config/config-error.js';
import { EXPORT_USAGE, exportCommand } from './export-command.js';
import { IMPORT_USAGE, importCommand } from './import-command.js';
import { SANDBOXES_USAGE, sandboxesCommand } from './sandboxes-command.js';

const commands: Record<string, (argv: readonly string[]) => Promise<number>> = { export: exportCommand, import: importCommand, sandboxes: sandboxesCommand };

/** The subcommands' lines for --help. */
export const SUBCOMMANDS_HELP = ['Subcommands (on the storage the settings select; memory has nothing to export or import into):', `  ${EXPORT_USAGE}`, `  ${IMPORT_USAGE}`, `  ${SANDBOXES_USAGE}`].join('\n');

/**
 * Runs `plant-store <name> …` when `name` is a subcommand and returns its exit status;
 * undefined when it is not one (the server starts). A bad setting exits 2 like the server's,
 * any other failure exits 1 with one line naming the command.
 */
export async function runSubcommand(argv: readonly string[]): Promise<number | undefined> {
  const name = argv[0];
  const command = name === undefined ? undefined : commands[name];
  if (command === undefined) return undefined;
  try {
    return await command(argv.slice(1));
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`plant-store ${name}: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`plant-store ${name}: ${describe(error)}\n`);
    return 1;
  }
}

// A storage error's own message is for API clients ("storage is unavailable"); the operator also gets its cause.
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
