import { expect } from 'chai';
import { ConfigError } from '../../composition/config/config-error.js';
import { configFrom } from '../../composition/config/parse-config.js';

const readConfig = (argv: string[], env: Record<string, string>) => configFrom(argv, env);

describe('storage selection in the configuration', () => {
  const storageOf = (argv: string[], env: Record<string, string> = {}) => readConfig(argv, env).storage;

  it('defaults to disk in ./plant-store-data', () => {
    expect(storageOf([])).to.deep.equal({ dataDir: './plant-store-data', timeoutMs: 5000 });
  });

  it('--data-dir / PLANT_STORE_DATA_DIR name the directory, the flag winning', () => {
    expect(storageOf([], { PLANT_STORE_DATA_DIR: '/srv/plants' })).to.deep.include({ dataDir: '/srv/plants' });
    expect(storageOf(['--data-dir', 'here'], { PLANT_STORE_DATA_DIR: '/srv/plants' })).to.deep.include({ dataDir: 'here' });
  });

  it('a MongoDB URI implies mongodb storage; --storage memory means none (in memory)', () => {
    expect(storageOf([], { MONGODB_URI: 'mongodb://127.0.0.1/plants' })).to.deep.include({ mongodbUri: 'mongodb://127.0.0.1/plants' });
    expect(storageOf(['--storage', 'memory'])).to.equal(undefined);
    expect(storageOf([], { PLANT_STORE_STORAGE: 'mongodb', MONGODB_URI: 'mongodb://db/x' })).to.deep.include({ mongodbUri: 'mongodb://db/x' });
  });

  it('on MongoDB the change log is kept unless PLANT_STORE_MONGODB_CHANGE_LOG / --mongodb-change-log is off', () => {
    const uri = { MONGODB_URI: 'mongodb://db/x' };
    expect(storageOf([], uri)).to.deep.include({ changeLog: true });
    expect(storageOf([], { ...uri, PLANT_STORE_MONGODB_CHANGE_LOG: 'off' })).to.deep.include({ changeLog: false });
    expect(storageOf(['--mongodb-change-log', 'on'], { ...uri, PLANT_STORE_MONGODB_CHANGE_LOG: 'off' })).to.deep.include({ changeLog: true });
    expect(() => readConfig([], { ...uri, PLANT_STORE_MONGODB_CHANGE_LOG: 'maybe' })).to.throw(ConfigError, '--mongodb-change-log / PLANT_STORE_MONGODB_CHANGE_LOG must be on or off');
  });

  it('refuses an unknown storage, mongodb without a URI, and a URI beside another storage', () => {
    expect(() => readConfig(['--storage', 'sqlite'], {})).to.throw(ConfigError, '--storage / PLANT_STORE_STORAGE must be one of disk, memory, mongodb, got "sqlite"');
    expect(() => readConfig(['--storage', 'mongodb'], {})).to.throw(ConfigError, 'is mongodb but no --mongodb-uri / MONGODB_URI is set');
    expect(() => readConfig(['--storage', 'disk'], { MONGODB_URI: 'mongodb://db/x' })).to.throw(ConfigError, 'is disk but --mongodb-uri / MONGODB_URI is set');
    expect(() => readConfig(['--data-dir', ' '], {})).to.throw(ConfigError, '--data-dir / PLANT_STORE_DATA_DIR must name a directory');
  });
});
