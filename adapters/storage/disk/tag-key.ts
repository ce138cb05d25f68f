/**
 * How the tag indexes (`plants-by-tag`, `sandbox-tags`) key a tag. lmdb-js's key
 * encoding (ordered-binary) writes a string of 64 UTF-16 units or more as raw UTF-8, where
 * U+0000 to U+0004 are its own separators and escapes: such a tag inside an array key reads
 * back as other elements (an id of `null`, of a string), and its plants went missing from
 * their tag. A tag of that kind, and only that kind, is keyed instead as `true` and the tag
 * with those characters (and the escape, U+0005) written as two: a `true` element can begin
 * no string's key, so the two forms never meet, and every other tag keeps the key release
 * 1.0 wrote. Only the id is ever read back from a key: a page knows the tag it asked for.
 */
export type TagPart = [tag: string] | [escaped: true, tag: string];

const LONG = 0x40;
const UNSAFE = /[\u0000-\u0005]/g;

export function tagPart(tag: string): TagPart {
  if (tag.length < LONG || !/[\u0000-\u0004]/.test(tag)) return [tag];
  // U+0005 then a letter: A-E for U+0000-U+0004, F for U+0005 itself.
  return [true, tag.replace(UNSAFE, (c) => `\u0005${String.fromCharCode(0x41 + c.charCodeAt(0))}`)];
}
