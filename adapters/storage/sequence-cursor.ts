import { createCipheriv, createDecipheriv, randomBytes, type Cipher, type Decipher } from 'node:crypto';

// The cursors of a storage with one ordered log (memory, disk): `<log id>-<sealed number>`.
// The log's id tells a cursor of another storage (or of a memory store since restarted) from
// one of this. The change's sequence number is sealed with the log's secret key, because it
// counts the changes of every sandbox: in the clear, a sandbox's cursors would show how much
// the others write, and when (the gaps between its own, and "now" moving while it wrote
// nothing). Sealed, a cursor says nothing a client can compare.
//
// The seal is AES-128 on one 16-byte block: the number (8 bytes), a nonce (4) and 4 zero
// bytes, which a forged or damaged cursor fails to decrypt to. An event's cursor has nonce 0,
// so it is the same however often it is read (a client may drop a repeat by it); a position
// ("now", where a stream starts) has a random one, so two of them at one number still differ.
// Each number gets a block of its own, never chained: ECB is this use's mode (a keyed
// permutation of single values), and its cipher objects are kept, since update() alone
// answers a whole block.

const BLOCK = 16;
/**
 * Event cursors kept, by number (a slot each, number modulo this): every stream of a sandbox
 * reads the same recent changes, each in its own batches, so one cursor is read many times
 * over a short while. About 300 KB of strings at most, once for the storage.
 */
const KEPT = 4096;
/** base64url of 16 bytes, canonical (the last character carries 2 bits: A, Q, g or w). */
const SEALED = /^[A-Za-z0-9_-]{21}[AQgw]$/;
const TWO_TO_32 = 2 ** 32;

/** A new log's secret key (kept with the log: workers and restarts must read the same). */
export function newCursorKey(): Buffer {
  return randomBytes(BLOCK);
}

/** Makes and reads the cursors of one log: its id and key. */
export class SequenceCursors {
  private readonly seal: Cipher;
  private readonly unseal: Decipher;
  private readonly block = Buffer.alloc(BLOCK);
  private readonly keptSequences = new Float64Array(KEPT).fill(-1);
  private readonly keptCursors: string[] = new Array<string>(KEPT).fill('');

  constructor(
    readonly logId: string,
    key: Uint8Array,
  ) {
    if (key.length !== BLOCK) throw new RangeError(`a cursor key is ${BLOCK} bytes, got ${key.length}`);
    this.seal = createCipheriv('aes-128-ecb', key, null).setAutoPadding(false);
    this.unseal = createDecipheriv('aes-128-ecb', key, null).setAutoPadding(false);
  }

  /** The cursor of change `sequence`: the same every time. */
  of(sequence: number): string {
    const slot = sequence % KEPT;
    if (this.keptSequences[slot] !== sequence) {
      this.keptCursors[slot] = this.sealed(sequence, 0);
      this.keptSequences[slot] = sequence;
    }
    return this.keptCursors[slot]!;
  }

  /** A position at `sequence` (where a stream starts): a cursor made afresh each time. */
  at(sequence: number): string {
    return this.sealed(sequence, randomBytes(4).readUInt32BE(0));
  }

  /** The sequence number a cursor of this log names; undefined for anything else (another log's, malformed, forged). */
  sequenceOf(cursor: string): number | undefined {
    if (cursor.length !== this.logId.length + 23 || !cursor.startsWith(`${this.logId}-`)) return undefined;
    const sealed = cursor.slice(this.logId.length + 1);
    if (!SEALED.test(sealed)) return undefined;
    const block = this.unseal.update(Buffer.from(sealed, 'base64url'));
    if (block.length !== BLOCK || block.readUInt32BE(12) !== 0) return undefined;
    const sequence = block.readUInt32BE(0) * TWO_TO_32 + block.readUInt32BE(4);
    return Number.isSafeInteger(sequence) ? sequence : undefined;
  }

  private sealed(sequence: number, nonce: number): string {
    const block = this.block;
    block.writeUInt32BE(Math.floor(sequence / TWO_TO_32), 0);
    block.writeUInt32BE(sequence >>> 0, 4);
    block.writeUInt32BE(nonce, 8);
    block.writeUInt32BE(0, 12);
    return `${this.logId}-${this.seal.update(block).toString('base64url')}`;
  }
}
