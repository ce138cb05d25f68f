import { spawn, type SpawnOptions } from 'node:child_process';
import { chmod, cp, lstat, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { projectRoot } from './project-root.js';

/** The FerretDB release the tests run against; the cache is keyed by it. */
export const FERRETDB_VERSION = 'v1.24.2';
const MODULE = 'github.com/FerretDB/FerretDB';
const cacheDir = join(projectRoot, '.cache', 'ferretdb', FERRETDB_VERSION);
const binaryPath = join(cacheDir, 'ferretdb');
// Downloads plus a cold compile take 1–2 minutes; this only stops a stuck build.
const BUILD_TIMEOUT_MS = 10 * 60_000;

let building: Promise<string> | undefined;

/**
 * Path of a FerretDB binary, built from source with Go on first use and cached in the
 * git-ignored .cache/ folder. Rejects with a one-line reason when it cannot be built.
 * (`go install …@version` is avoided: it asks the module proxy for the version list,
 * which some proxies refuse; `go mod download` of the exact version does not.)
 */
export function ferretDbBinary(): Promise<string> {
  building ??= findBinaryOrBuild();
  return building;
}

async function findBinaryOrBuild(): Promise<string> {
  if (await isFile(binaryPath)) return binaryPath;
  const go = await findGo();
  const started = Date.now();
  process.stderr.write(`Building FerretDB ${FERRETDB_VERSION} for the MongoDB tests, once, into ${relative(projectRoot, cacheDir)}/ (1–2 minutes on a cold Go cache)…\n`);
  await mkdir(cacheDir, { recursive: true });
  await removeStaleWork();
  // Private names for this build, renamed into place only when complete: an interrupted
  // or concurrent build never leaves a half-written binary where the next run looks.
  const work = join(cacheDir, `build-${process.pid}-${Date.now()}`);
  try {
    const download = await downloadModule(go);
    // The module cache is read-only; the build needs a writable copy with the version file
    // FerretDB embeds (its release process writes it; without it the binary panics at start).
    const source = join(work, 'src');
    await cp(download, source, { recursive: true });
    await makeWritable(source);
    await writeFile(join(source, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`);
    const output = join(work, 'ferretdb');
    await run(go, ['build', '-trimpath', '-o', output, './cmd/ferretdb'], { cwd: source });
    await rename(output, binaryPath);
  } catch (error) {
    throw new Error(`cannot build FerretDB ${FERRETDB_VERSION}: ${(error as Error).message}`, { cause: error });
  } finally {
    await removeTree(work);
  }
  process.stderr.write(`Built FerretDB ${FERRETDB_VERSION} in ${Math.round((Date.now() - started) / 1000)} s.\n`);
  return binaryPath;
}

/** The module's source directory in Go's (read-only) module cache, downloaded if needed. */
async function downloadModule(go: string): Promise<string> {
  // With -json, go prints a { Dir } or { Error } object on stdout, failing or not.
  const result = await run(go, ['mod', 'download', '-json', `${MODULE}@${FERRETDB_VERSION}`], { cwd: tmpdir() }).then(
    (stdout) => parseJson(stdout),
    (error: RunError) => {
      const reason = parseJson(error.stdout)?.Error;
      throw reason === undefined ? error : new Error(`go mod download: ${reason}`);
    },
  );
  if (result?.Dir === undefined) throw new Error('go mod download named no module directory');
  return result.Dir;
}

function parseJson(text = ''): { Dir?: string; Error?: string } | undefined {
  try {
    return JSON.parse(text) as { Dir?: string; Error?: string };
  } catch {
    return undefined;
  }
}

/** `go` from PATH, else the standard install location. */
async function findGo(): Promise<string> {
  for (const candidate of ['go', '/usr/local/go/bin/go']) {
    try {
      await run(candidate, ['version'], {});
      return candidate;
    } catch {
      // try the next one
    }
  }
  throw new Error('Go is not installed (no `go` on PATH or in /usr/local/go/bin)');
}

type RunError = Error & { stdout?: string };

/** Runs a command to completion; resolves its stdout, rejects with the tail of its stderr. */
function run(command: string, args: string[], options: SpawnOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      ...options,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Pure-Go SQLite, so no C compiler needed; no VCS stamping of a copied tree; and no
      // go.work from a parent folder steering the build.
      env: { ...process.env, CGO_ENABLED: '0', GOWORK: 'off', GOFLAGS: `${process.env['GOFLAGS'] ?? ''} -buildvcs=false`.trim() },
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), BUILD_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve(stdout);
      const lastLine = stderr.trim().split('\n').pop() ?? '';
      const error: RunError = new Error(`go ${args[0]} failed (${signal ?? `exit ${code}`})${lastLine ? `: ${lastLine}` : ''}`);
      error.stdout = stdout;
      reject(error);
    });
  });
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Leftovers of interrupted builds; a build of another live test run is left alone. */
async function removeStaleWork(): Promise<void> {
  for (const name of await readdir(cacheDir)) {
    const pid = /^build-(\d+)-/.exec(name)?.[1];
    if (pid !== undefined && !isAlive(Number(pid))) await removeTree(join(cacheDir, name));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function removeTree(path: string): Promise<void> {
  await makeWritable(path).catch(() => {});
  await rm(path, { recursive: true, force: true });
}

async function makeWritable(path: string): Promise<void> {
  const info = await lstat(path);
  if (info.isSymbolicLink()) return;
  await chmod(path, info.mode | 0o200 | (info.isDirectory() ? 0o700 : 0));
  if (info.isDirectory()) {
    for (const name of await readdir(path)) await makeWritable(join(path, name));
  }
}
