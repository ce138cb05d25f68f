import { expect } from 'chai';
import fc from 'fast-check';
import { idRoundedByParsing } from '../../adapters/http/plants/id-literal.js';

/** The body as a client might send it: the id's literal among other members, in any order. */
const body = (idLiteral: string, before: boolean) => (before ? `{"id":${idLiteral},"name":"Fe 2.5e3"}` : `{ "name" : "x", "tag":"1.5", "id" : ${idLiteral} }`);

describe('an id literal read by JSON.parse (idRoundedByParsing)', () => {
  it('a whole value, written with or without fraction zeros or an exponent, is not rounded', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e12 }), fc.nat({ max: 5 }), fc.integer({ min: 0, max: 6 }), fc.boolean(), (n, zeros, shift, before) => {
        // n as m × 10^shift where m has `shift` more digits after its point, then `zeros` zeros.
        const digits = String(n);
        const point = Math.max(1, digits.length - shift);
        const mantissa = `${digits.slice(0, point)}${point < digits.length || zeros > 0 ? '.' : ''}${digits.slice(point)}${'0'.repeat(zeros)}`;
        const literal = `${mantissa}e${digits.length - point}`;
        for (const written of [digits, `${digits}.${'0'.repeat(zeros + 1)}`, literal]) {
          const text = body(written, before);
          const parsed = JSON.parse(text) as { id: number };
          expect(parsed.id, written).to.equal(n);
          expect(idRoundedByParsing(text, parsed), written).to.equal(false);
        }
      }),
    );
  });

  it('a value with a non-zero fraction is caught whether or not the double it parses to is whole', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e15 }), fc.stringMatching(/^[0-9]{0,20}[1-9]$/), fc.boolean(), (n, fraction, before) => {
        const text = body(`${n}.${fraction}`, before);
        const parsed = JSON.parse(text) as { id: number };
        // Whole after parsing (rounded) or not: never an integer id either way.
        expect(idRoundedByParsing(text, parsed) || !Number.isInteger(parsed.id), text).to.equal(true);
      }),
    );
    expect(idRoundedByParsing('{"id":0.99999999999999999}', { id: 1 })).to.equal(true);
  });

  it('only the top-level object\'s last id member counts', () => {
    const check = (text: string) => idRoundedByParsing(text, JSON.parse(text));
    expect(check('{"nested":{"id":0.99999999999999999},"id":1}')).to.equal(false);
    expect(check('{"id":0.99999999999999999,"id":1}')).to.equal(false);
    expect(check('{"id":1,"id":0.99999999999999999}')).to.equal(true);
    expect(check('{"\\u0069d":0.99999999999999999}')).to.equal(true);
    expect(check('{"name":"\\"id\\":0.99999999999999999","id":2}')).to.equal(false);
    expect(check('[0.99999999999999999]')).to.equal(false);
  });
});
