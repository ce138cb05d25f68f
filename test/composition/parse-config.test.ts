import { availableParallelism } from 'node:os';
import { expect } from 'chai';
import { parseConfig, type ServerConfig } from '../../composition/config/parse-config.js';

type Env = Record<string, string>;

function accepted(argv: string[], env: Env = {}): ServerConfig {
  const result = parseConfig(argv, env);
  if (!result.ok) expect.fail(`refused ${JSON.stringify({ argv, env })}: ${result.problems.join(' | ')}`);
  return result.config;
}

function refused(argv: string[], env: Env = {}): string[] {
  const result = parseConfig(argv, env);
  if (result.ok) expect.fail(`accepted ${JSON.stringify({ argv, env })}`);
  return [...result.problems];
}

/**
 * Every setting: values it takes (given by variable, and by flag where it has one) with
 * what they become, and values it refuses. Refusals name the flag and variable and repeat
 * the value given.
 */
interface SettingCase {
  readonly flag?: string;
  readonly env: string;
  readonly pick: (config: ServerConfig) => unknown;
  readonly accepts: readonly (readonly [string, unknown])[];
  readonly refuses: readonly string[];
  /** Settings that must come with this one, judged with it. */
  readonly companions?: Env;
  /** Settings that must be there for this one to show in the options tree. */
  readonly with?: Env;
  /** A secret: a refusal never repeats the value. */
  readonly secret?: boolean;
}

const jwtCompanions: Env = {
  PLANT_STORE_JWT_JWKS_URL: 'https://idp.example/.well-known/jwks.json',
  PLANT_STORE_JWT_ISSUER: 'https://idp.example/',
  PLANT_STORE_JWT_AUDIENCE: 'https://plants.example/api',
};

const cases: Record<string, SettingCase> = {
  port: {
    flag: '--port',
    env: 'PORT',
    pick: (c) => c.http.port,
    accepts: [['0', 0], ['3000', 3000], ['65535', 65535], [' 8080 ', 8080]],
    refuses: ['eighty', '-1', '65536', '1e3', '0x10', '3000.5'],
  },
  host: {
    flag: '--host',
    env: 'HOST',
    pick: (c) => c.http.host,
    accepts: [['0.0.0.0', '0.0.0.0'], ['::1', '::1'], ['localhost', 'localhost']],
    refuses: ['two words', 'http://host', 'a/b'],
  },
  basePath: {
    flag: '--base-path',
    env: 'PLANT_STORE_BASE_PATH',
    pick: (c) => c.http.basePath,
    accepts: [['/v1', '/v1'], ['/', ''], ['/api/v2', '/api/v2']],
    refuses: ['v1', '/v1/', '/v 1', '/v1?x'],
  },
  tokens: {
    env: 'PLANT_STORE_TOKENS',
    pick: (c) => c.access.tokens,
    accepts: [
      ['a-token-0123456789abcdef', [{ token: 'a-token-0123456789abcdef' }]],
      [' one-0123456789abcdef , two-0123456789abcdef plants:read', [{ token: 'one-0123456789abcdef' }, { token: 'two-0123456789abcdef', scopes: ['plants:read'] }]],
      ['', undefined],
    ],
    // An empty entry (a stray comma, or a variable that expanded to nothing) and a list of blanks are refused.
    refuses: ['tiny-token', 'semi;colon;0123456789abcdef', 'a-token-0123456789abcdef plants:admin', 'one-0123456789abcdef,,two-0123456789abcdef', 'one-0123456789abcdef plants:read,', ' , '],
    secret: true,
  },
  jwtJwksUrl: {
    flag: '--jwt-jwks-url',
    env: 'PLANT_STORE_JWT_JWKS_URL',
    pick: (c) => c.access.jwt?.jwksUrl,
    companions: jwtCompanions,
    accepts: [['https://login.example/keys', 'https://login.example/keys'], ['http://127.0.0.1:8080/jwks', 'http://127.0.0.1:8080/jwks']],
    refuses: ['not a url', 'ftp://idp.example/jwks'],
  },
  jwtIssuer: {
    flag: '--jwt-issuer',
    env: 'PLANT_STORE_JWT_ISSUER',
    pick: (c) => c.access.jwt?.issuer,
    companions: jwtCompanions,
    accepts: [['https://login.example/tenant/', 'https://login.example/tenant/']],
    refuses: [],
  },
  jwtAudience: {
    flag: '--jwt-audience',
    env: 'PLANT_STORE_JWT_AUDIENCE',
    pick: (c) => c.access.jwt?.audience,
    companions: jwtCompanions,
    accepts: [['api://plants', 'api://plants']],
    refuses: [],
  },
  jwtScopeClaim: {
    flag: '--jwt-scope-claim',
    env: 'PLANT_STORE_JWT_SCOPE_CLAIM',
    pick: (c) => c.access.jwt?.scopeClaim,
    companions: jwtCompanions,
    accepts: [['scp', 'scp'], ['permissions', 'permissions']],
    refuses: ['a b', 'x'.repeat(65)],
  },
  tokensFile: {
    flag: '--tokens-file',
    env: 'PLANT_STORE_TOKENS_FILE',
    pick: (c) => c.access.tokensFile,
    accepts: [['/etc/plant-store/tokens', '/etc/plant-store/tokens']],
    refuses: [],
  },
  storage: {
    flag: '--storage',
    env: 'PLANT_STORE_STORAGE',
    pick: (c) => (c.storage === undefined ? 'memory' : 'dataDir' in c.storage ? 'disk' : 'mongodb'),
    accepts: [['disk', 'disk'], ['memory', 'memory']],
    refuses: ['sqlite', 'Disk', 'mongo'],
  },
  dataDir: {
    flag: '--data-dir',
    env: 'PLANT_STORE_DATA_DIR',
    pick: (c) => c.storage !== undefined && 'dataDir' in c.storage && c.storage.dataDir,
    accepts: [['/srv/plants', '/srv/plants'], ['data', 'data']],
    refuses: [' '],
  },
  mongodbUri: {
    flag: '--mongodb-uri',
    env: 'MONGODB_URI',
    pick: (c) => c.storage !== undefined && 'mongodbUri' in c.storage && c.storage.mongodbUri,
    accepts: [['mongodb://db:27017/plants', 'mongodb://db:27017/plants'], ['mongodb+srv://cluster.example/x', 'mongodb+srv://cluster.example/x']],
    refuses: ['http://db:27017', 'db:27017', 'mongodb://'],
  },
  mongodbDb: {
    flag: '--mongodb-db',
    env: 'MONGODB_DB',
    with: { MONGODB_URI: 'mongodb://db/' },
    pick: (c) => c.storage !== undefined && 'mongodbUri' in c.storage && c.storage.databaseName,
    accepts: [['plants', 'plants'], ['plant_store-2', 'plant_store-2']],
    refuses: ['has space', 'dots.not.allowed', 'x'.repeat(64)],
  },
  logLevel: {
    flag: '--log-level',
    env: 'PLANT_STORE_LOG_LEVEL',
    pick: (c) => c.log.level,
    accepts: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => [level, level] as const),
    refuses: ['verbose', 'INFO', '3'],
  },
  rateLimit: {
    flag: '--rate-limit',
    env: 'PLANT_STORE_RATE_LIMIT',
    pick: (c) => c.http.rateLimit,
    accepts: [['off', undefined], ['10', { perSecond: 10, burst: 100 }], ['0.5', { perSecond: 0.5, burst: 100 }]],
    refuses: ['0', '-1', 'fast', '1e3', '2000000'],
  },
  rateBurst: {
    flag: '--rate-burst',
    env: 'PLANT_STORE_RATE_BURST',
    pick: (c) => c.http.rateLimit?.burst,
    accepts: [['1', 1], ['500', 500]],
    refuses: ['0', '1.5', 'off', 'many'],
  },
  authFailureLimit: {
    flag: '--auth-failure-limit',
    env: 'PLANT_STORE_AUTH_FAILURE_LIMIT',
    pick: (c) => c.http.authFailuresPerMinute,
    accepts: [['off', undefined], ['30', 30], ['1', 1]],
    refuses: ['0', '0.5', 'none', '-3'],
  },
  bodyLimit: {
    flag: '--body-limit',
    env: 'PLANT_STORE_BODY_LIMIT',
    pick: (c) => c.http.bodyLimitBytes,
    accepts: [['64', 64], ['16384', 16384], ['1048576', 1048576]],
    refuses: ['63', '1048577', '16k', 'off'],
  },
  storageTimeout: {
    flag: '--storage-timeout-ms',
    env: 'PLANT_STORE_STORAGE_TIMEOUT_MS',
    pick: (c) => c.storage?.timeoutMs,
    accepts: [['100', 100], ['600000', 600000]],
    refuses: ['99', '600001', '5s'],
  },
  headersTimeout: {
    flag: '--headers-timeout-ms',
    env: 'PLANT_STORE_HEADERS_TIMEOUT_MS',
    pick: (c) => c.http.headersTimeoutMs,
    accepts: [['100', 100], ['2000', 2000]],
    refuses: ['0', '99', '600001', '10s'],
  },
  requestTimeout: {
    flag: '--request-timeout-ms',
    env: 'PLANT_STORE_REQUEST_TIMEOUT_MS',
    pick: (c) => c.http.requestTimeoutMs,
    accepts: [['30000', 30000], ['3600000', 3600000]],
    refuses: ['99', '3600001', 'soon'],
  },
  feedStreams: {
    flag: '--feed-streams',
    env: 'PLANT_STORE_FEED_STREAMS',
    pick: (c) => c.http.feedStreams,
    accepts: [['1', 1], ['20000', 20000]],
    refuses: ['0', '1000001', 'many'],
  },
  feedStreamsPerToken: {
    flag: '--feed-streams-per-token',
    env: 'PLANT_STORE_FEED_STREAMS_PER_TOKEN',
    pick: (c) => c.http.feedStreamsPerToken,
    accepts: [['1', 1], ['5000', 5000]],
    refuses: ['0', '-3', 'all'],
  },
  shutdownGrace: {
    flag: '--shutdown-grace-ms',
    env: 'PLANT_STORE_SHUTDOWN_GRACE_MS',
    pick: (c) => c.http.shutdownGraceMs,
    accepts: [['0', 0], ['10000', 10000]],
    refuses: ['-1', '600001', 'soon'],
  },
  corsOrigins: {
    flag: '--cors-origins',
    env: 'PLANT_STORE_CORS_ORIGINS',
    pick: (c) => c.http.corsOrigins,
    accepts: [['*', ['*']], ['https://a.example, http://b.example:8080', ['https://a.example', 'http://b.example:8080']], [' , ', []]],
    refuses: ['a.example', 'https://a.example/path', 'ftp://a.example'],
  },
  docs: {
    flag: '--docs',
    env: 'PLANT_STORE_DOCS',
    pick: (c) => c.http.docs,
    accepts: [['true', true], ['false', false], ['0', false]],
    refuses: ['off', 'yes'],
  },
  metrics: {
    flag: '--metrics',
    env: 'PLANT_STORE_METRICS',
    pick: (c) => c.http.metrics,
    accepts: [['on', true], ['off', false], ['true', true], ['0', false]],
    refuses: ['yes', 'enabled'],
  },
  workers: {
    flag: '--workers',
    env: 'PLANT_STORE_WORKERS',
    pick: (c) => c.server.workers,
    accepts: [['1', 1], ['2', 2], ['64', 64], ['auto', Math.min(availableParallelism(), 64)]],
    refuses: ['0', '65', '-1', '1.5', 'all'],
  },
};

describe('configuration (parseConfig)', () => {
  it('with nothing given: the documented defaults', () => {
    expect(accepted([])).to.deep.equal({
      http: {
        host: '127.0.0.1',
        port: 3000,
        basePath: '',
        bodyLimitBytes: 16384,
        rateLimit: { perSecond: 50, burst: 100 },
        authFailuresPerMinute: 30,
        corsOrigins: [],
        headersTimeoutMs: 10000,
        requestTimeoutMs: 30000,
        shutdownGraceMs: 10000,
        docs: true,
        metrics: false,
        feedStreams: 500,
        feedStreamsPerToken: 100,
      },
      access: {},
      storage: { dataDir: './plant-store-data', timeoutMs: 5000 },
      webhooks: undefined,
      sandboxes: undefined,
      feed: { retentionMs: 86_400_000 },
      server: { workers: 1 },
      log: { level: 'info' },
    });
  });

  it('refuses more than one worker on memory storage, which lives in one process; takes them on disk and MongoDB', () => {
    expect(refused(['--workers', '2', '--storage', 'memory'])).to.deep.equal([
      '--workers / PLANT_STORE_WORKERS is 2, but memory storage lives in one process; use disk or mongodb storage, or 1 worker',
    ]);
    expect(accepted(['--workers', '1', '--storage', 'memory']).server.workers).to.equal(1);
    expect(accepted(['--workers', '2']).storage).to.deep.include({ dataDir: './plant-store-data' });
    expect(accepted(['--workers', '2'], { MONGODB_URI: 'mongodb://127.0.0.1:27017/x' }).server.workers).to.equal(2);
  });

  for (const [name, c] of Object.entries(cases)) {
    describe(name, () => {
      const others = { ...c.companions, ...c.with };
      delete others[c.env];
      for (const [text, value] of c.accepts) {
        it(`takes ${JSON.stringify(text)} as ${JSON.stringify(value)}`, () => {
          expect(c.pick(accepted([], { ...others, [c.env]: text }))).to.deep.equal(value);
          if (c.flag) expect(c.pick(accepted([c.flag, text], others))).to.deep.equal(value);
        });
      }
      for (const text of c.refuses) {
        it(`refuses ${JSON.stringify(text)}, naming ${c.flag ?? c.env}${c.secret ? ', never repeating the value' : ' and the value'}`, () => {
          for (const problems of [refused([], { ...others, [c.env]: text }), ...(c.flag ? [refused([`${c.flag}=${text}`], others)] : [])]) {
            expect(problems).to.have.length(1);
            if (c.secret) expect(problems[0]).not.to.include(text);
            if (c.companions) {
              // Judged together: the refusal names the identity-provider settings as a group.
              expect(problems[0]).to.match(/--jwt-jwks-url \/ PLANT_STORE_JWT_JWKS_URL/);
              continue;
            }
            expect(problems[0]).to.include(c.env);
            if (!c.secret) expect(problems[0]).to.include(`"${text}"`);
            if (c.flag) expect(problems[0]).to.include(c.flag);
          }
        });
      }
    });
  }

  it('a flag wins over its variable; an empty variable counts as unset', () => {
    expect(accepted(['--port', '81'], { PORT: '80' }).http.port).to.equal(81);
    expect(accepted([], { PORT: '' }).http.port).to.equal(3000);
  });

  it('names every bad value at once, one line each', () => {
    const problems = refused(['--port', 'x'], { PLANT_STORE_LOG_LEVEL: 'loud', PLANT_STORE_BODY_LIMIT: '1' });
    expect(problems).to.have.length(3);
    for (const problem of problems) expect(problem).not.to.include('\n');
  });

  it("keeps Node's whole hint for an option value that starts with a dash", () => {
    const [problem] = refused(['--rate-limit', '-1']);
    expect(problem).to.include("'--rate-limit'").and.to.include("--rate-limit=-XYZ");
    expect(problem).not.to.include('\n');
  });

  it('refuses unknown flags, a flag without its value, and positional arguments', () => {
    expect(refused(['--colour', 'green'])[0]).to.include('--colour');
    expect(refused(['--port'])[0]).to.include('--port');
    expect(refused(['serve'])[0]).to.include('serve');
  });

  it('takes no token from a flag (a command line is public)', () => {
    expect(refused(['--tokens', 'a-token-0123456789abcdef'])[0]).to.include('--tokens');
  });
});
