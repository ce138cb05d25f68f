import { expect } from 'chai';
import { ConfigError } from '../../composition/config/config-error.js';
import { configFrom } from '../../composition/config/parse-config.js';
import { HTTP_DEFAULTS } from '../../adapters/http/app/http-settings.js';

const readConfig = (argv: string[], env: Record<string, string>) => configFrom(argv, env);

describe('client time limits in the configuration', () => {
  it('default to 10 s for headers and 30 s for a whole request, the library\'s defaults', () => {
    const { http } = readConfig([], {});
    expect([http.headersTimeoutMs, http.requestTimeoutMs]).to.deep.equal([HTTP_DEFAULTS.headersTimeoutMs, HTTP_DEFAULTS.requestTimeoutMs]);
    expect([HTTP_DEFAULTS.headersTimeoutMs, HTTP_DEFAULTS.requestTimeoutMs]).to.deep.equal([10_000, 30_000]);
  });

  it('are read from flags and variables, a flag winning', () => {
    const env = { PLANT_STORE_HEADERS_TIMEOUT_MS: '2000', PLANT_STORE_REQUEST_TIMEOUT_MS: '9000' };
    expect(readConfig([], env).http).to.include({ headersTimeoutMs: 2000, requestTimeoutMs: 9000 });
    expect(readConfig(['--headers-timeout-ms', '500', '--request-timeout-ms', '700'], env).http).to.include({ headersTimeoutMs: 500, requestTimeoutMs: 700 });
  });

  it('refuse a headers limit above the request limit, and values that are not milliseconds', () => {
    expect(() => readConfig(['--headers-timeout-ms', '5000', '--request-timeout-ms', '4000'], {})).to.throw(ConfigError, /must not exceed/);
    expect(() => readConfig(['--request-timeout-ms', 'soon'], {})).to.throw(ConfigError, /--request-timeout-ms/);
    expect(() => readConfig([], { PLANT_STORE_HEADERS_TIMEOUT_MS: '0' })).to.throw(ConfigError, /PLANT_STORE_HEADERS_TIMEOUT_MS/);
  });
});
