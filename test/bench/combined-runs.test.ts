import { expect } from 'chai';
import { combinedRuns, type RunResult } from './load.js';

const run = (requests: number, seconds: number, serverCpuSeconds: number, extra: Partial<RunResult> = {}): RunResult => ({
  requests,
  seconds,
  requestsPerSecond: requests / seconds,
  serverCpuSeconds,
  requestsPerCpuSecond: requests / serverCpuSeconds,
  loadGeneratorCpu: 0.5,
  p50Ms: 3,
  p99Ms: 7,
  non2xx: 0,
  errors: 0,
  statusCodes: { 200: requests },
  ...extra,
});

describe("bench: a server's runs taken in windows, combined (combinedRuns)", () => {
  it('is the windows together: requests and CPU summed, not their rates averaged', () => {
    // 1,000 requests on 0.1 s of CPU and 3,000 on 0.5 s: 4,000 on 0.6 s, where the mean of the two rates is 8,000.
    const one = combinedRuns([run(1000, 2, 0.1), run(3000, 2, 0.5, { loadGeneratorCpu: 0.9, p50Ms: 5, p99Ms: 20, non2xx: 2, statusCodes: { 200: 2998, 503: 2 } })]);
    expect(one.requests).to.equal(4000);
    expect(one.seconds).to.equal(4);
    expect(one.requestsPerSecond).to.equal(1000);
    expect(one.serverCpuSeconds).to.be.closeTo(0.6, 1e-12);
    expect(one.requestsPerCpuSecond).to.be.closeTo(4000 / 0.6, 1e-6);
    expect(one.loadGeneratorCpu).to.be.closeTo(0.7, 1e-12);
    expect(one.p99Ms).to.equal(20);
    expect(one.non2xx).to.equal(2);
    expect(one.statusCodes).to.deep.equal({ 200: 3998, 503: 2 });
  });

  it('keeps a single run as it is', () => {
    const single = run(10, 1, 0.01);
    expect(combinedRuns([single])).to.equal(single);
  });
});
