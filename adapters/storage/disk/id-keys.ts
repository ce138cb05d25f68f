import { enableNullTermination, readKey, writeKey } from 'ordered-binary';

/** In an array key ordered-binary writes a number whole: 9 bytes, never trimmed. */
const ID_BYTES = 9;

/**
 * The key encoding of the databases whose keys end in a plant's id and are read back only
 * for it: the tag indexes (`[…tag, id]`, `[…tag, sandbox, id]`) and `sandbox-plants`
 * (`[sandbox, id]`). Every read of them is of one tag's or one sandbox's range, so the reader
 * already holds everything but the id. Keys are written as lmdb-js writes any key (the same
 * ordered-binary bytes: directories written before read unchanged) and read back as the id
 * alone, without decoding a sandbox's name or a tag into a new string and array for every key
 * of a page (a page of 100 from a named sandbox: 37 against 34 µs of CPU, where the default
 * sandbox's number keys take 29; docs/benchmarks.md, Sandboxes, "Keys read as their id").
 * Passing enableNullTermination keeps lmdb-js writing the keys as its own encoder does.
 */
const idKeys = {
  writeKey,
  readKey: (buffer: Uint8Array, _start: number, end: number): number => readKey(buffer, end - ID_BYTES, end) as number,
  enableNullTermination,
};

/** Open options for such a database. lmdb-js takes keyEncoder for any database; its typings list it for the root only. */
export const ID_KEYS = { keyEncoder: idKeys };

/** A key read from a database opened with ID_KEYS: its id, whatever the key's type as written. */
export const idOf = (key: unknown): number => key as number;
