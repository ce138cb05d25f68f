import { expect } from 'chai';
import { TokenBuckets } from '../../adapters/http/guards/token-buckets.js';

/** A clock the test moves by hand. */
class FixedClock {
  nowMs = 1_000_000;
  readonly now = () => this.nowMs;
  advance(ms: number): void {
    this.nowMs += ms;
  }
}

describe('token buckets (injected clock)', () => {
  it('a new key has the whole burst; each take spends one; an empty bucket refuses with a retry time', () => {
    const clock = new FixedClock();
    const buckets = new TokenBuckets(0.5, 3, clock.now);
    expect([1, 2, 3].map(() => buckets.take('alice').remaining)).to.deep.equal([2, 1, 0]);
    const refused = buckets.take('alice');
    expect(refused).to.include({ allowed: false, remaining: 0, retryAfterSeconds: 2 });
    expect(refused.resetSeconds).to.equal(6);
  });

  it('refills at the configured rate, never above the burst', () => {
    const clock = new FixedClock();
    const buckets = new TokenBuckets(20, 1, clock.now);
    expect(buckets.take('alice').allowed).to.equal(true);
    expect(buckets.take('alice').allowed).to.equal(false);
    clock.advance(49);
    expect(buckets.take('alice').allowed).to.equal(false);
    clock.advance(51);
    expect(buckets.take('alice').allowed).to.equal(true);
    clock.advance(60_000);
    expect(buckets.take('alice')).to.include({ allowed: true, remaining: 0 });
  });

  it('keys are independent, and isEmpty spends nothing', () => {
    const clock = new FixedClock();
    const buckets = new TokenBuckets(1, 1, clock.now);
    buckets.take('alice');
    expect(buckets.isEmpty('alice')).to.equal(true);
    expect(buckets.isEmpty('bob')).to.equal(false);
    expect(buckets.isEmpty('bob')).to.equal(false);
    expect(buckets.take('bob').allowed).to.equal(true);
    clock.advance(1000);
    expect(buckets.isEmpty('alice')).to.equal(false);
  });

  it('at the key limit, full buckets are dropped first, so an active key keeps its state', () => {
    const clock = new FixedClock();
    const buckets = new TokenBuckets(1, 2, clock.now, 3);
    buckets.take('busy');
    buckets.take('busy');
    buckets.take('idle-1');
    buckets.take('idle-2');
    clock.advance(1500); // idle-1 and idle-2 are full again; busy has 1.5 of 2
    buckets.take('newcomer');
    // busy kept its partly spent bucket: one take leaves 0.5, so the next is refused.
    expect(buckets.take('busy').allowed).to.equal(true);
    expect(buckets.take('busy').allowed).to.equal(false);
  });

  it('at the key limit with no full bucket, the oldest keys are forgotten: memory stays bounded', () => {
    const clock = new FixedClock();
    const buckets = new TokenBuckets(0.001, 1, clock.now, 100);
    for (let i = 0; i < 10_000; i++) buckets.take(`key-${i}`);
    // key-0 was forgotten (its empty bucket would refuse); the newest key is still empty.
    expect(buckets.take('key-0').allowed).to.equal(true);
    expect(buckets.take('key-9999').allowed).to.equal(false);
    expect((buckets as unknown as { buckets: Map<string, unknown> }).buckets.size).to.be.at.most(100);
  });
});
