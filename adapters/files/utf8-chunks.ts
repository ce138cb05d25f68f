import { isUtf8 } from 'node:buffer';

/**
 * What stands in the text where bytes were not UTF-8: a lone surrogate, which no UTF-8 decodes
 * to. A decoder's U+FFFD would not do: a valid file may hold that character itself.
 */
export const NOT_UTF8_MARK = '\uDFFF';

/**
 * The text of a byte stream, chunk by chunk, as UTF-8: a sequence split between two chunks is
 * kept for the next, and each byte that is no part of a valid sequence (Unicode's Table 3-7:
 * no overlong forms, surrogates or code points past U+10FFFF) reads as NOT_UTF8_MARK, so the
 * entry holding it can be refused instead of stored changed.
 */
export async function* utf8Chunks(bytes: AsyncIterable<Uint8Array | string>): AsyncGenerator<string> {
  let carry: Buffer = Buffer.alloc(0);
  for await (const chunk of bytes) {
    const next = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const joined = carry.length === 0 ? next : Buffer.concat([carry, next]);
    const end = completeEnd(joined);
    carry = Buffer.from(joined.subarray(end));
    const text = decoded(joined.subarray(0, end));
    if (text !== '') yield text;
  }
  if (carry.length > 0) yield decoded(carry);
}

/** Where the last complete sequence ends: one begun in the last 3 bytes and not finished waits for the next chunk. */
function completeEnd(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

function decoded(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  let text = '';
  let from = 0;
  for (let i = 0; i < bytes.length; ) {
    const length = sequenceLength(bytes, i);
    if (length > 0) {
      i += length;
      continue;
    }
    text += bytes.toString('utf8', from, i) + NOT_UTF8_MARK;
    from = ++i;
  }
  return text + bytes.toString('utf8', from);
}

/** The length of the valid UTF-8 sequence at `i`, or 0 when there is none. */
function sequenceLength(bytes: Buffer, i: number): number {
  const lead = bytes[i]!;
  const follows = (j: number, low = 0x80, high = 0xbf) => j < bytes.length && bytes[j]! >= low && bytes[j]! <= high;
  if (lead < 0x80) return 1;
  if (lead < 0xc2) return 0;
  if (lead < 0xe0) return follows(i + 1) ? 2 : 0;
  if (lead < 0xf0) return follows(i + 1, lead === 0xe0 ? 0xa0 : 0x80, lead === 0xed ? 0x9f : 0xbf) && follows(i + 2) ? 3 : 0;
  if (lead < 0xf5) return follows(i + 1, lead === 0xf0 ? 0x90 : 0x80, lead === 0xf4 ? 0x8f : 0xbf) && follows(i + 2) && follows(i + 3) ? 4 : 0;
  return 0;
}
