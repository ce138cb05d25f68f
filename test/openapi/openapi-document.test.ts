import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Router from '@koa/router';
import { StaticTokenVerifier } from '../../adapters/auth/static-token-verifier.js';
import { createHttpApp } from '../../adapters/http/app/create-http-app.js';
import { HTTP_DEFAULTS } from '../../adapters/http/app/http-settings.js';
import { OTHER_METHODS_ROUTE } from '../../adapters/http/app/other-methods.js';
import { statusByErrorCode } from '../../adapters/http/errors/error-statuses.js';
import { createPlantStore } from '../../composition/index.js';
import { ErrorCode } from '../../core/index.js';
import { schemasOf } from '../support/openapi-json-schemas.js';
import { startHttpServer, type HttpServer } from '../support/http-server.js';
import { projectRoot } from '../support/project-root.js';
import { quietLog } from '../support/quiet-log.js';

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** `METHOD /path/{param}` for every operation of the document. */
function documentedOperations(document: Record<string, any>): string[] {
  return Object.entries(document.paths as Record<string, any>).flatMap(([path, item]) =>
    methods.filter((method) => item[method] !== undefined).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/** `METHOD /path/{param}` for every route of every router the app mounts (HEAD is GET's twin). */
async function servedRoutes(basePath: string): Promise<string[]> {
  const store = await createPlantStore();
  const app = createHttpApp({
    settings: { ...HTTP_DEFAULTS, basePath, rateLimit: undefined, authFailuresPerMinute: undefined },
    useCases: store.useCases,
    tokenVerifier: new StaticTokenVerifier(['unused-token-0123456789abcdef']),
    version: '0.0.0-test',
    checkStorage: async () => {},
    log: quietLog(),
  });
  await store.close();
  const routers = app.middleware.map((middleware) => (middleware as { router?: Router }).router).filter((router) => router !== undefined);
  expect(routers.length, 'routers mounted').to.be.greaterThan(1);
  return routers.flatMap((router) =>
    // A route answering only the methods its path does not serve (405, OPTIONS) is no operation.
    router.stack.filter((layer) => layer.name !== OTHER_METHODS_ROUTE).flatMap((layer) =>
      layer.methods.filter((method) => method !== 'HEAD').map((method) => `${method} ${String(layer.path).replace(/:(\w+)/g, '{$1}')}`),
    ),
  );
}

/** The status each shared error response stands for, stated here rather than derived. */
const componentStatus: Record<string, string> = {
  NoSuchRoute: '404',
  MethodNotAllowed: '405',
  UnparsableRequest: '400',
  RequestTimeout: '408',
  ExpectationFailed: '417',
  HeadersTooLarge: '431',
};

/** Every `{ error: { enum } }` a response of the document declares, with its status. */
function errorEnums(document: Record<string, any>): { status: string; codes: number[]; where: string }[] {
  const responses = [
    ...Object.entries(document.paths as Record<string, any>).flatMap(([path, item]) =>
      methods.filter((m) => item[m]).flatMap((m) => Object.entries(item[m].responses).map(([status, r]) => ({ status, r, where: `${m} ${path}` }))),
    ),
    ...Object.entries(document.components.responses).map(([name, r]: [string, any]) => ({ status: '', r, where: name })),
  ];
  return responses.flatMap(({ status, r, where }: any) => {
    const codes = r.content?.['application/json']?.schema?.allOf?.[1]?.properties?.error?.enum;
    if (codes === undefined) return [];
    return [{ status: status || componentStatus[where]!, codes, where }];
  });
}

describe('the OpenAPI document', () => {
  let api: HttpServer;
  afterEach(async () => api?.close());

  for (const basePath of ['', '/v1']) {
    it(`is a valid OpenAPI 3.1 document${basePath ? ` with base path ${basePath}` : ''}`, async () => {
      api = await startHttpServer(undefined, { basePath });
      const validator = new Validator();
      const result = await validator.validate(api.openapi);
      expect(result.errors, JSON.stringify(result.errors, null, 2)).to.equal(undefined);
      expect(result.valid).to.equal(true);
      expect(validator.version).to.equal('3.1');
    });

    it(`documents every route the routers serve, and no other${basePath ? ` (base path ${basePath})` : ''}`, async () => {
      api = await startHttpServer(undefined, { basePath });
      expect(documentedOperations(api.openapi).sort()).to.deep.equal((await servedRoutes(basePath)).sort());
    });
  }

  it('is checked by a validator that does reject a broken document', async () => {
    api = await startHttpServer();
    const broken = structuredClone(api.openapi);
    delete broken.paths['/healthz'].get.responses['200'].description;
    expect((await new Validator().validate(broken)).valid).to.equal(false);
  });

  it('puts the plant paths under the base path and keeps the operational ones at the root', async () => {
    api = await startHttpServer(undefined, { basePath: '/v1' });
    expect(Object.keys(api.openapi.paths)).to.include.members(['/v1/plants', '/v1/plants/{id}', '/healthz', '/readyz', '/openapi.json', '/docs']);
    expect(Object.keys(api.openapi.paths)).not.to.include('/plants');
  });

  it('carries the package version', async () => {
    api = await startHttpServer();
    const { version } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8'));
    expect(api.openapi.info.version).to.equal(version);
  });

  it('lists every error code of the core, each under its own status and only there', async () => {
    api = await startHttpServer();
    const enums = errorEnums(api.openapi);
    for (const code of Object.values(ErrorCode)) {
      expect(enums.some((e) => e.codes.includes(code)), `code ${code} is in some response`).to.equal(true);
    }
    for (const { status, codes, where } of enums) {
      for (const code of codes) expect(statusByErrorCode[code as ErrorCode], `${code} in ${where} ${status}`).to.equal(Number(status));
    }
  });

  it('requires the bearer token on exactly the plant operations', async () => {
    api = await startHttpServer();
    expect(api.openapi.components.securitySchemes.bearerAuth).to.include({ type: 'http', scheme: 'bearer' });
    for (const [path, item] of Object.entries(api.openapi.paths as Record<string, any>)) {
      for (const method of methods.filter((m) => item[m])) {
        const open = item[method].security?.length === 0;
        expect(open, `${method} ${path} is open`).to.equal(!path.startsWith('/plants'));
        if (!open) expect(item[method].responses).to.include.keys('401', '429', '500', '503');
      }
    }
  });

  it("names its webhooks alike, the creation one as the public contract does (/plant/webhook), and asks no token of a receiver", async () => {
    api = await startHttpServer();
    const webhooks = api.openapi.webhooks as Record<string, any>;
    expect(Object.keys(webhooks)).to.deep.equal(['/plant/webhook', '/plant/deleted/webhook']);
    const eventType = (name: string) => webhooks[name].post.parameters.find((p: any) => p.name === 'webhook-event-type').schema.const;
    expect(eventType('/plant/webhook')).to.equal('plant.created');
    expect(eventType('/plant/deleted/webhook')).to.equal('plant.deleted');
    // The document's default (a bearer token) would otherwise apply, and the docs page would show a lock.
    expect(api.openapi.security).to.deep.equal([{ bearerAuth: [] }]);
    for (const [name, item] of Object.entries(webhooks)) expect(item.post.security, name).to.deep.equal([]);
  });

  it('every plant operation names its scope and documents 403 40301 and 503 50302; the scheme says JWT only when JWT is on', async () => {
    api = await startHttpServer();
    const needs: Record<string, string> = { listPlants: 'plants:read', getPlant: 'plants:read', createPlant: 'plants:write', deletePlant: 'plants:write' };
    for (const item of Object.values(api.openapi.paths as Record<string, any>)) {
      for (const method of methods.filter((m) => item[m]?.operationId in needs)) {
        const operation = item[method];
        expect(operation.security, operation.operationId).to.deep.equal([{ bearerAuth: [needs[operation.operationId]] }]);
        expect(operation.responses['403'].content['application/json'].schema.allOf[1].properties.error.enum).to.include.members([40301, 40302]);
        expect(operation.responses['503'].content['application/json'].schema.allOf[1].properties.error.enum).to.include(50302);
        expect(operation.responses['403'].headers).to.include.keys('WWW-Authenticate');
      }
    }
    const scheme = api.openapi.components.securitySchemes.bearerAuth;
    expect(scheme).not.to.have.property('bearerFormat');
    expect(scheme.description).to.include('plants:read').and.include('plants:write');
  });

  it('has only schemas that compile in strict JSON Schema 2020-12', async () => {
    api = await startHttpServer();
    const schemas = schemasOf(api.openapi);
    for (const [name, schema] of Object.entries(api.openapi.components.schemas)) {
      expect(() => schemas.problems(schema as object, null), name).not.to.throw();
    }
    const json = JSON.stringify(api.openapi);
    for (const ref of new Set(json.match(/"#\/components\/[^"]+"/g))) {
      const target = ref.slice(3, -1).split('/').reduce((node: any, key) => node?.[key], api.openapi);
      expect(target, `${ref} resolves`).not.to.equal(undefined);
    }
  });
});
