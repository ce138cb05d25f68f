import { expect } from 'chai';
import { DEFAULT_RETRY_SCHEDULE_MS, parseConfig } from '../../composition/index.js';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule, retryScheduleText } from '../../composition/store/webhook-options.js';
import { runCli } from '../support/cli-process.js';
import { TEST_WEBHOOK_SECRET } from '../support/webhook-receiver.js';

const problemsOf = (argv: string[], env: Record<string, string>) => {
  const result = parseConfig(argv, env);
  return result.ok ? [] : result.problems;
};

describe('webhook settings', () => {
  it('none by default; with URLs and a secret: the documented defaults', () => {
    const none = parseConfig([], {});
    expect(none.ok && none.config.webhooks).to.equal(undefined);
    const result = parseConfig([], { PLANT_STORE_WEBHOOK_URLS: 'https://hooks.example.org/a, https://b.example.org/x', PLANT_STORE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET });
    expect(result.ok && result.config.webhooks).to.deep.equal({
      urls: ['https://hooks.example.org/a', 'https://b.example.org/x'],
      secret: TEST_WEBHOOK_SECRET,
      events: ['plant.created'],
      retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      timeoutMs: 10_000,
      allowPrivate: false,
    });
  });

  it("the default schedule is the core's numbers, shown as the setting's text; any schedule's text reads back the same", () => {
    expect(DEFAULT_RETRY_SCHEDULE).to.equal('5s,5m,30m,2h,5h,10h,10h');
    expect(retryScheduleText([200, 1500, 90_000, 3_600_000])).to.equal('200ms,1500ms,90s,1h');
    for (const schedule of [DEFAULT_RETRY_SCHEDULE_MS, [1, 999, 61_000, 7 * 24 * 3_600_000]]) expect(parseRetrySchedule(retryScheduleText(schedule))).to.deep.equal(schedule);
  });

  it('flags mirror the variables (the secret excepted: command lines are public)', () => {
    const result = parseConfig(
      ['--webhook-urls', 'http://h.example/x', '--webhook-events', 'plant.created,plant.deleted', '--webhook-retry-schedule', '0.2s,500ms,1m', '--webhook-timeout-ms', '2500', '--webhook-allow-private', 'true'],
      { PLANT_STORE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET },
    );
    expect(result.ok && result.config.webhooks).to.deep.include({ events: ['plant.created', 'plant.deleted'], retryScheduleMs: [200, 500, 60_000], timeoutMs: 2500, allowPrivate: true });
  });

  it('refuses, one line each: URLs without a secret, a malformed or short secret (never quoted), bad URLs, events, schedules, booleans', () => {
    expect(problemsOf([], { PLANT_STORE_WEBHOOK_URLS: 'https://h.example/x' })).to.deep.equal([
      '--webhook-urls / PLANT_STORE_WEBHOOK_URLS is set but PLANT_STORE_WEBHOOK_SECRET is not: webhooks must be signed',
    ]);
    const badSecret = problemsOf([], { PLANT_STORE_WEBHOOK_URLS: 'https://h.example/x', PLANT_STORE_WEBHOOK_SECRET: 'hunter2-not-whsec' });
    expect(badSecret).to.deep.equal(['PLANT_STORE_WEBHOOK_SECRET: must be whsec_ followed by base64 (value not shown)']);
    expect(problemsOf([], { PLANT_STORE_WEBHOOK_SECRET: 'whsec_c2hvcnQ=' })[0]).to.match(/24 to 64 bytes.*got 5/);
    expect(problemsOf([], { PLANT_STORE_WEBHOOK_URLS: 'ftp://h.example/x' })[0]).to.match(/^--webhook-urls \/ PLANT_STORE_WEBHOOK_URLS entries must be http\(s\) URLs/);
    expect(problemsOf([], { PLANT_STORE_WEBHOOK_EVENTS: 'plant.updated' })[0]).to.match(/^--webhook-events \/ PLANT_STORE_WEBHOOK_EVENTS entries must be plant.created or plant.deleted/);
    for (const schedule of ['5', '5x', '-1s', '5s,,5m', '9000h']) {
      expect(problemsOf([], { PLANT_STORE_WEBHOOK_RETRY_SCHEDULE: schedule })[0], schedule).to.match(/^--webhook-retry-schedule \/ PLANT_STORE_WEBHOOK_RETRY_SCHEDULE must be delays like 5s,5m,2h/);
    }
    expect(problemsOf([], { PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'maybe' })[0]).to.match(/must be true or false, got "maybe"$/);
    expect(problemsOf([], { PLANT_STORE_WEBHOOK_TIMEOUT_MS: '0' })[0]).to.match(/PLANT_STORE_WEBHOOK_TIMEOUT_MS must be an integer from 100/);
  });

  it('the command exits 2 with one clear line for each: URLs without a secret, a malformed secret, a malformed schedule', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ PLANT_STORE_WEBHOOK_URLS: 'https://h.example/x' }, /PLANT_STORE_WEBHOOK_SECRET is not: webhooks must be signed/],
      [{ PLANT_STORE_WEBHOOK_URLS: 'https://h.example/x', PLANT_STORE_WEBHOOK_SECRET: 'whsec_!!' }, /PLANT_STORE_WEBHOOK_SECRET: must be whsec_ followed by base64/],
      [{ PLANT_STORE_WEBHOOK_URLS: 'https://h.example/x', PLANT_STORE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET, PLANT_STORE_WEBHOOK_RETRY_SCHEDULE: 'soon' }, /PLANT_STORE_WEBHOOK_RETRY_SCHEDULE must be delays/],
    ];
    await Promise.all(
      cases.map(async ([env, line]) => {
        const { code, stderr } = await runCli(env);
        expect(code).to.equal(2);
        expect(stderr.trim().split('\n')).to.have.length(1);
        expect(stderr).to.match(line);
        expect(stderr).not.to.contain('whsec_!!');
      }),
    );
  });
});
