import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { projectRoot } from '../support/project-root.js';
import { tempDir } from '../support/temp-dir.js';

const run = promisify(execFile);

// A module loader hook that writes every module URL it resolves to a file.
const hooks = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.LOADED_MODULES, result.url + '\\n');
  return result;
}`;

/** Runs `script` (an ES module body) in a fresh Node; returns every module URL it loaded, in order. */
async function modulesLoadedBy(script: string): Promise<{ loaded: string[]; stdout: string }> {
  using dir = tempDir('plant-store-loading-');
  const file = (name: string) => join(dir.path, name);
  const log = file('loaded.txt');
  writeFileSync(file('hooks.mjs'), hooks);
  writeFileSync(file('register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(file('hooks.mjs')).href)});\n`);
  writeFileSync(file('main.mjs'), script);
  writeFileSync(log, '');
  const { stdout } = await run(process.execPath, ['--import', pathToFileURL(file('register.mjs')).href, file('main.mjs')], {
    env: { ...process.env, LOADED_MODULES: log },
  });
  return { loaded: readFileSync(log, 'utf8').split('\n').filter(Boolean), stdout };
}

const entry = pathToFileURL(join(projectRoot, 'dist', 'composition', 'index.js')).href;
// What embedded use must not pay for: the HTTP framework, body parsing, logging, the API document.
// The HTTP settings' type and defaults (adapters/http/app/http-settings.js) are plain data the
// configuration reads; everything else of the HTTP adapter is the HTTP side.
const httpSide = [/\/node_modules\/koa\//, /\/node_modules\/koa-body\//, /\/node_modules\/@koa\//, /\/node_modules\/pino\//, /\/adapters\/http\/(?!app\/http-settings\.js$)/];

describe('the main entry point', () => {
  it('loads the core, the composition and memory storage only: no Koa, koa-body, pino, OpenAPI code or prom-client', async () => {
    const { loaded, stdout } = await modulesLoadedBy(`
      const { createPlantStore } = await import(${JSON.stringify(entry)});
      const store = await createPlantStore();
      await store.create({ id: 1, name: 'Fern' });
      console.log(JSON.stringify((await store.list()).plants));
      await store.close();
    `);
    expect(stdout.trim()).to.equal('[{"id":1,"name":"Fern"}]');
    expect(loaded.some((url) => url.endsWith('/dist/composition/index.js'))).to.equal(true);
    for (const pattern of httpSide) expect(loaded.filter((url) => pattern.test(url)), String(pattern)).to.deep.equal([]);
    // Metrics are loaded only for a store made with them (docs/metrics.md).
    expect(loaded.filter((url) => /\/node_modules\/prom-client\//.test(url))).to.deep.equal([]);
  });

  it('require() of it works too (Node ≥ 20.19 loads ES modules from CommonJS)', async () => {
    const script = `const m = require(${JSON.stringify(fileURLToPath(entry))}); m.createPlantStore().then(async (s) => { await s.create({ id: 1, name: 'Fern' }); console.log(JSON.stringify((await s.list()).plants)); });`;
    const { stdout } = await run(process.execPath, ['-e', script]);
    expect(stdout.trim()).to.equal('[{"id":1,"name":"Fern"}]');
  });

  it('startServer from it still serves, loading the HTTP side only when called', async () => {
    const { loaded, stdout } = await modulesLoadedBy(`
      const { createPlantStore, startServer } = await import(${JSON.stringify(entry)});
      const store = await createPlantStore();
      const server = await startServer({ store, tokens: ['loading-test-token-0123456789'], port: 0 });
      // A bare fetch inside the child: importing the test's client there would load modules this test counts.
      const response = await fetch(server.url + '/plants', { headers: { authorization: 'Bearer loading-test-token-0123456789' } });
      console.log(response.status);
      await server.close(0);
      await store.close();
    `);
    expect(stdout.trim()).to.equal('200');
    // The same hook sees Koa once a server starts: the first test's silence is not blindness.
    expect(loaded.some((url) => /\/node_modules\/koa\//.test(url))).to.equal(true);
  });
});
