import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './project-root.js';
import { tempDir } from './temp-dir.js';
import { eventually } from './eventually.js';

export const cliPath = join(projectRoot, 'dist', 'composition', 'cli.js');

export interface CliServer {
  readonly child: ChildProcess;
  /** Base URL including any base path, from the start-up line. */
  readonly url: string;
  /** The storage named on the start-up line. */
  readonly storage: string;
  /** The generated token, read from the file the server logged, when it made one. */
  readonly generatedToken: string | undefined;
  /** Where the server wrote its generated token. */
  readonly tokenFile: string | undefined;
  /** Everything printed so far, both streams. */
  output(): string;
  /** Everything printed so far on standard output. */
  stdout(): string;
  /** Everything printed so far on standard error. */
  stderr(): string;
  /** SIGTERM, then the exit code (SIGKILL after 10 s). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Runs the built CLI as its own process on a free port and waits for its start-up line. */
export async function startCli(env: Record<string, string | undefined> = {}, args: string[] = [], cwd?: string): Promise<CliServer> {
  const dataDir = ownDataDir(env, args);
  const child = spawn(process.execPath, [cliPath, ...args], {
    ...(cwd && { cwd }),
    env: definedOnly({ ...withoutPlantStoreVariables(process.env), PORT: '0', ...dataDir.env, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.once('exit', dataDir.remove);
  let text = '';
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => {
    text += chunk;
    stdout += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    text += chunk;
    stderr += chunk;
  });
  const started = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start-up line within 15 s:\n${text}`)), 15_000);
    const check = () => {
      const match = /listening on (\S+) \(storage: ([^)]+)\)/.exec(text);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve(match);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before starting:\n${text}`));
    });
  });
  // A server with no token nor identity provider configured logs where it wrote one, right after the start-up line.
  const configured = ['PLANT_STORE_TOKENS', 'PLANT_STORE_TOKENS_FILE', 'PLANT_STORE_JWT_JWKS_URL'].some((name) => env[name] !== undefined);
  const generates = !configured && !args.includes('--tokens-file') && !args.includes('--jwt-jwks-url');
  const tokenFile = generates ? await eventually(() => /"tokenFile":"([^"]+)"/.exec(text)?.[1], { what: 'the line naming the generated token file', context: () => text, timeoutMs: 5000 }) : undefined;
  return {
    child,
    url: started[1]!,
    storage: started[2]!,
    generatedToken: tokenFile === undefined ? undefined : readFileSync(tokenFile, 'utf8').trim(),
    tokenFile,
    output: () => text,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill(signal);
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const [code] = (await exited) as [number | null];
      clearTimeout(killer);
      return code;
    },
  };
}

/** Runs the CLI to completion (for --help and bad configurations). */
export async function runCli(env: Record<string, string | undefined>, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dataDir = ownDataDir(env, args);
  const child = spawn(process.execPath, [cliPath, ...args], {
    env: definedOnly({ ...withoutPlantStoreVariables(process.env), PORT: '0', ...dataDir.env, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.once('exit', dataDir.remove);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(killer);
  return { code, stdout, stderr };
}

/**
 * A process started without a data directory of its own gets a fresh temporary one, removed
 * when it exits: the default storage is disk, and no test may write into the project.
 */
function ownDataDir(env: Record<string, string | undefined>, args: string[]): { env: Record<string, string>; remove: () => void } {
  // Naming the variable, even as undefined (the server's own default), opts out.
  if ('PLANT_STORE_DATA_DIR' in env || args.some((arg) => arg.startsWith('--data-dir'))) return { env: {}, remove: () => {} };
  const directory = tempDir('plant-store-cli-');
  return { env: { PLANT_STORE_DATA_DIR: directory.path }, remove: directory.remove };
}

/** A variable given as undefined is left unset (a child's env would otherwise hold the text "undefined"). */
function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** The test runner's own environment must not configure the servers it starts. */
function withoutPlantStoreVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  for (const name of Object.keys(copy)) {
    if (name.startsWith('PLANT_STORE_') || name === 'MONGODB_URI' || name === 'MONGODB_DB' || name === 'PORT' || name === 'HOST') delete copy[name];
  }
  return copy;
}
