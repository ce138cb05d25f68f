import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JWT_DEFAULTS } from '../../adapters/auth/jwt-settings.js';
import { DEFAULT_DATABASE_NAME, DEFAULT_MONGODB_CHANGE_LOG } from '../../adapters/storage/mongo/mongo-defaults.js';
import { DEFAULT_STORAGE_TIMEOUT_MS } from '../../adapters/storage/storage-unavailable.js';
import { helpText } from '../../composition/config/help-text.js';
import { shownDefaultOf } from '../../composition/config/setting.js';
import { settings, type SettingName } from '../../composition/config/settings.js';
import { HTTP_DEFAULTS } from '../../adapters/http/app/http-settings.js';
import { DEFAULT_RETRY_SCHEDULE, DEFAULT_WEBHOOK_EVENTS, DEFAULT_WEBHOOK_TIMEOUT_MS } from '../../composition/store/webhook-options.js';
import { projectRoot } from '../support/project-root.js';
import { SELF_SERVICE_DEFAULTS } from '../../core/index.js';
import { DEFAULT_FEED_RETENTION_MS } from '../../composition/store/feed-retention.js';

// Every default of the command, and where it is written. A row whose option the library
// has takes the library's default (one constant, used by both); the others are the
// command's own (the library leaves rate limits off, say) and are written in the row alone.
const libraryDefaults: Partial<Record<SettingName, string>> = {
  port: String(HTTP_DEFAULTS.port),
  host: HTTP_DEFAULTS.host,
  basePath: HTTP_DEFAULTS.basePath,
  bodyLimit: String(HTTP_DEFAULTS.bodyLimitBytes),
  headersTimeout: String(HTTP_DEFAULTS.headersTimeoutMs),
  requestTimeout: String(HTTP_DEFAULTS.requestTimeoutMs),
  shutdownGrace: String(HTTP_DEFAULTS.shutdownGraceMs),
  corsOrigins: HTTP_DEFAULTS.corsOrigins.join(','),
  docs: String(HTTP_DEFAULTS.docs),
  metrics: HTTP_DEFAULTS.metrics ? 'on' : 'off',
  feedStreams: String(HTTP_DEFAULTS.feedStreams),
  feedStreamsPerToken: String(HTTP_DEFAULTS.feedStreamsPerToken),
  storageTimeout: String(DEFAULT_STORAGE_TIMEOUT_MS),
  webhookEvents: DEFAULT_WEBHOOK_EVENTS.join(','),
  webhookRetrySchedule: DEFAULT_RETRY_SCHEDULE,
  webhookTimeout: String(DEFAULT_WEBHOOK_TIMEOUT_MS),
  sandboxSignupLimit: String(SELF_SERVICE_DEFAULTS.signupsPerHour),
  sandboxMaxPlants: String(SELF_SERVICE_DEFAULTS.maxPlants),
  sandboxTtl: `${SELF_SERVICE_DEFAULTS.ttlMs / 3_600_000}h`,
  feedRetention: `${DEFAULT_FEED_RETENTION_MS / 3_600_000}h`,
  mongodbChangeLog: DEFAULT_MONGODB_CHANGE_LOG ? 'on' : 'off',
};
const commandOwn: Partial<Record<SettingName, string>> = {
  rateLimit: '50',
  rateBurst: '100',
  authFailureLimit: '30',
  dataDir: './plant-store-data',
  logLevel: 'info',
  webhookAllowPrivate: 'false',
  sandboxSignup: 'off',
  workers: '1',
};

function productionSources(): { path: string; text: string }[] {
  const files: { path: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(projectRoot, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) files.push({ path, text: readFileSync(join(projectRoot, path), 'utf8') });
    }
  };
  for (const dir of ['core', 'adapters', 'composition']) walk(dir);
  return files;
}

describe('defaults, each written once', () => {
  it('every settings row with a default is listed here, with where its value comes from', () => {
    const listed = { ...libraryDefaults, ...commandOwn };
    const withDefault = Object.entries(settings).filter(([, row]) => row.default !== '').map(([name]) => name);
    expect(withDefault.sort()).to.deep.equal(Object.keys(listed).filter((name) => listed[name as SettingName] !== '').sort());
    for (const [name, value] of Object.entries(listed)) expect(settings[name as SettingName].default, name).to.equal(value);
  });

  it('--help shows every default; the ones decided later (storage kind, database, scope claim) are shown from their constants', () => {
    const help = helpText();
    for (const row of Object.values(settings)) if (shownDefaultOf(row) !== '') expect(help).to.include(`(default ${shownDefaultOf(row)})`);
    expect(settings.mongodbDb.shownDefault).to.equal(DEFAULT_DATABASE_NAME);
    expect(settings.jwtScopeClaim.shownDefault).to.equal(JWT_DEFAULTS.scopeClaim);
    expect(settings.storage.shownDefault).to.equal('disk');
    expect(help).to.include(`(default ${DEFAULT_DATABASE_NAME})`).and.include(`(default ${JWT_DEFAULTS.scopeClaim})`).and.include('(default disk)');
  });

  it('no fallback in the production source writes a number of its own: each names its default', () => {
    const fallbacks = productionSources().flatMap(({ path, text }) =>
      text
        .split('\n')
        .map((line, i) => ({ where: `${path}:${i + 1}`, line: line.trim() }))
        // `?? 0` stands for "none known" (an unknown holder, no status), not for an option's default.
        .filter(({ line }) => /\?\?\s*[1-9]/.test(line) || /[(,]\s*\w+\??\s*(:\s*\w+)?\s*=\s*[0-9][0-9_]*\s*[,)]/.test(line)),
    );
    expect(fallbacks).to.deep.equal([]);
  });
});
