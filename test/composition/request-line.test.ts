import { expect } from 'chai';
import fc from 'fast-check';
import { Writable } from 'node:stream';
import type { RequestLogFields } from '../../adapters/http/app/http-log.js';
import { createLogger } from '../../composition/server/logger.js';

/** A logger as the server makes it for a JSON destination, and the lines it wrote. */
function jsonLogger(level: 'info' | 'warn' = 'info') {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      done();
    },
  });
  return { logger: createLogger(level, destination) as ReturnType<typeof createLogger> & { request?: (fields: RequestLogFields) => void }, lines };
}

const withoutTime = (line: string) => line.replace(/,"time":\d+/, '');
const hasLoneSurrogate = (text: string) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('token-1', '/plants/7', 'a"b\\c', 'tab\there', 'é', 'x'.repeat(60)));
const fields: fc.Arbitrary<RequestLogFields> = fc.record({
  requestId: fc.option(text, { nil: undefined }),
  method: fc.oneof(fc.constantFrom('GET', 'POST', 'DELETE'), text),
  route: fc.option(fc.oneof(fc.constantFrom('/plants', '/plants/:id'), text), { nil: null }),
  path: fc.option(text, { nil: undefined }),
  status: fc.oneof(fc.constantFrom(200, 204, 404, 503), fc.integer()),
  error: fc.option(fc.oneof(fc.constantFrom(40401, 50301), fc.integer()), { nil: undefined }),
  durationMs: fc.oneof(fc.double(), fc.constantFrom(0.123456, 12, Number.NaN)),
  tokenHolder: fc.option(text, { nil: undefined }),
});

// The request line is written by hand on the hot path (composition/server/request-line.ts): it must
// be the line pino itself writes for the same fields.
describe('the request line written straight to the destination', () => {
  it('is the line pino writes for the same fields, for any field values', () => {
    const { logger, lines } = jsonLogger();
    expect(logger.request).to.be.a('function');
    fc.assert(
      fc.property(fields, (sample) => {
        lines.length = 0;
        logger.info(sample, 'request');
        logger.request!(sample);
        expect(lines).to.have.length(2);
        const [byPino, byHand] = lines.map(withoutTime) as [string, string];
        expect(JSON.parse(byHand)).to.deep.equal(JSON.parse(byPino));
        // Byte for byte, except where pino writes a lone surrogate raw (not valid UTF-8) and
        // the hand-made line escapes it.
        if (!Object.values(sample).some((value) => typeof value === 'string' && hasLoneSurrogate(value))) expect(byHand).to.equal(byPino);
      }),
      { numRuns: 2000 },
    );
  });

  it('writes nothing when the level is above info', () => {
    const { logger, lines } = jsonLogger('warn');
    logger.request!({ requestId: 'r', method: 'GET', route: '/plants', path: '/plants', status: 200, error: undefined, durationMs: 1, tokenHolder: 'token-1' });
    expect(lines).to.deep.equal([]);
  });
});
