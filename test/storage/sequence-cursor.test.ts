import { expect } from 'chai';
import fc from 'fast-check';
import { newCursorKey, SequenceCursors } from '../../adapters/storage/sequence-cursor.js';

describe('sequence cursors (memory and disk change logs)', () => {
  const cursors = new SequenceCursors('0a1b2c3d', newCursorKey());

  it('an event\'s cursor reads back to its number, is the same each time, and shows no number in the clear', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (sequence) => {
        const cursor = cursors.of(sequence);
        expect(cursor).to.match(/^0a1b2c3d-[A-Za-z0-9_-]{22}$/);
        expect(cursors.sequenceOf(cursor)).to.equal(sequence);
        expect(cursors.of(sequence + 1)).to.not.equal(cursor);
        expect(cursors.of(sequence)).to.equal(cursor);
      }),
    );
    // Consecutive numbers share no visible prefix or order: what a sandbox could count with.
    const consecutive = [1000, 1001, 1002, 1003].map((n) => cursors.of(n));
    expect(new Set(consecutive.map((cursor) => cursor.slice(9, 11))).size, 'consecutive numbers, unrelated texts').to.be.greaterThan(1);
  });

  it('a position is made afresh each time, yet reads back to the same number', () => {
    const positions = Array.from({ length: 50 }, () => cursors.at(42));
    expect(new Set(positions).size).to.equal(50);
    for (const position of positions) expect(cursors.sequenceOf(position)).to.equal(42);
    expect(positions).to.not.include(cursors.of(42));
  });

  it('reads nothing from another log\'s cursor, another key\'s, a damaged one or one in the old clear form', () => {
    const other = new SequenceCursors('0a1b2c3d', newCursorKey());
    expect(cursors.sequenceOf(other.of(7))).to.equal(undefined);
    expect(cursors.sequenceOf(new SequenceCursors('ffffffff', newCursorKey()).of(7))).to.equal(undefined);
    for (const cursor of ['', '0a1b2c3d-7', '0a1b2c3d-1z', `0a1b2c3d-${'A'.repeat(22)}`, `${cursors.of(7)}x`, cursors.of(7).slice(0, -1), `x${cursors.of(7).slice(1)}`]) {
      expect(cursors.sequenceOf(cursor), cursor).to.equal(undefined);
    }
    // Any one character changed: never read as some other number of this log (but by chance, 1 in 2^32).
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e9 }), fc.integer({ min: 9, max: 30 }), fc.constantFrom(...'ABCabc019-_Qgw'), (sequence, at, replacement) => {
        const cursor = cursors.of(sequence);
        fc.pre(cursor[at] !== replacement);
        expect(cursors.sequenceOf(cursor.slice(0, at) + replacement + cursor.slice(at + 1))).to.equal(undefined);
      }),
    );
  });

  it('a key is 16 bytes', () => {
    expect(() => new SequenceCursors('0a1b2c3d', Buffer.alloc(15))).to.throw(RangeError);
  });
});
