import { ConfigError } from '../config/config-error.js';

/** A subcommand's command line: its own flags, its positional arguments, and the server settings left for readConfig. */
export interface CommandArgs {
  readonly own: ReadonlyMap<string, string>;
  readonly positionals: readonly string[];
  readonly settings: readonly string[];
}

/**
 * Separates a subcommand's flags (`ownFlags`, each taking a value) and positionals from the
 * server's settings flags. Every settings flag takes a value, so `--flag value` and
 * `--flag=value` are both one setting; a lone `-` is a positional (standard input).
 */
export function splitCommandArgs(argv: readonly string[], ownFlags: readonly string[]): CommandArgs {
  const own = new Map<string, string>();
  const positionals: string[] = [];
  const settings: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-' || !arg.startsWith('-')) {
      positionals.push(arg);
      continue;
    }
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const name = flag.replace(/^--?/, '');
    const value = inline ?? argv[++i];
    if (value === undefined) throw new ConfigError(`${flag} needs a value (see --help)`);
    if (ownFlags.includes(name)) own.set(name, value);
    else settings.push(`${flag}=${value}`);
  }
  return { own, positionals, settings };
}
