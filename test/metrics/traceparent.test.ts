import { expect } from 'chai';
import { traceIdOf } from '../../adapters/http/app/traceparent.js';
import { currentTraceId, inTrace } from '../../adapters/tracing/trace-scope.js';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';

describe('traceparent (W3C Trace Context, version 00)', () => {
  it(`reads the trace id of 00-${traceId}-00f067aa0ba902b7-01`, () => {
    expect(traceIdOf(`00-${traceId}-00f067aa0ba902b7-01`)).to.equal(traceId);
    expect(traceIdOf(`00-${traceId}-00f067aa0ba902b7-00`)).to.equal(traceId);
  });

  const malformed = {
    absent: undefined,
    empty: '',
    'upper-case hex': `00-${traceId.toUpperCase()}-00f067aa0ba902b7-01`,
    'an all-zero trace id': `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
    'an all-zero parent id': `00-${traceId}-${'0'.repeat(16)}-01`,
    'another version': `01-${traceId}-00f067aa0ba902b7-01`,
    'version ff': `ff-${traceId}-00f067aa0ba902b7-01`,
    'a short trace id': `00-${traceId.slice(1)}-00f067aa0ba902b7-01`,
    'a long parent id': `00-${traceId}-00f067aa0ba902b7a-01`,
    'fields after version 00': `00-${traceId}-00f067aa0ba902b7-01-extra`,
    'not hex': `00-${traceId.replace('4', 'g')}-00f067aa0ba902b7-01`,
    'two headers': [`00-${traceId}-00f067aa0ba902b7-01`, `00-${traceId}-00f067aa0ba902b7-01`],
    'two joined': `00-${traceId}-00f067aa0ba902b7-01, 00-${traceId}-00f067aa0ba902b7-01`,
  };
  for (const [what, header] of Object.entries(malformed)) {
    it(`ignores ${what}`, () => expect(traceIdOf(header)).to.equal(undefined));
  }
});

describe('the trace scope: a trace id for what a call does before its first await', () => {
  it('is the call’s trace id while it runs synchronously, and the outer one again after, even when it throws', () => {
    expect(currentTraceId()).to.equal(undefined);
    const seen = inTrace('a', () => [currentTraceId(), inTrace('b', () => currentTraceId()), currentTraceId()]);
    expect(seen).to.deep.equal(['a', 'b', 'a']);
    expect(() => inTrace('a', () => {
      throw new Error('x');
    })).to.throw('x');
    expect(currentTraceId()).to.equal(undefined);
    expect(inTrace(undefined, () => currentTraceId())).to.equal(undefined);
  });

  it('is never seen after the call’s first await: no other request’s work can read it', async () => {
    const afterAwait = await inTrace('a', async () => {
      const before = currentTraceId();
      await Promise.resolve();
      return [before, currentTraceId()];
    });
    expect(afterAwait).to.deep.equal(['a', undefined]);
  });
});
