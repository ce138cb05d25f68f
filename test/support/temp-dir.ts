import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory under the system's temporary directory, removed with all it holds. */
export interface TempDir extends Disposable {
  readonly path: string;
  /** Removes the directory; removing it again does nothing. */
  remove(): void;
}

/**
 * Creates `<tmpdir>/<prefix>XXXXXX`. Declared with `using`, it is removed when the block
 * ends, however it ends (a failed assertion included); a directory that outlives one block
 * (made in a `before` or `beforeEach` hook) is removed by calling `remove()` in the
 * matching `after` hook, once whatever uses it is closed.
 */
export function tempDir(prefix: string): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => rmSync(path, { recursive: true, force: true });
  return { path, remove, [Symbol.dispose]: remove };
}
