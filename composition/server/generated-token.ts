import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A generated token written where only this user can read it, and how to remove it again. */
export interface TokenFile {
  readonly path: string;
  remove(): Promise<void>;
}

/**
 * Writes the token to a new file (mode 0600) in a new private directory (0700) under the
 * system's temporary folder: a fresh name each run, so nobody can plant a file or link there
 * in advance.
 */
export async function writeGeneratedToken(token: string): Promise<TokenFile> {
  const dir = await mkdtemp(join(tmpdir(), 'plant-store-'));
  const path = join(dir, 'token');
  await writeFile(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}
