import { expect } from 'chai';
import { assertDocumented, documentationProblems, type ObservedResponse } from '../support/openapi-conformance.js';
import { startHttpServer, type HttpServer } from '../support/http-server.js';

/** The headers every real answer carries, so each case below differs in one thing only. */
const usual = { 'x-request-id': 'r-1', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'content-type': 'application/json; charset=utf-8' };

/** Exactly one problem, and it says `pattern`: the checker flags the fault and nothing else. */
function expectOne(found: string[], pattern: RegExp): void {
  expect(found, found.join('\n')).to.have.length(1);
  expect(found[0]).to.match(pattern);
}

describe('the conformance checker reports what the document does not describe', () => {
  let api: HttpServer;
  before(async () => {
    api = await startHttpServer();
  });
  after(async () => api.close());

  const problems = (observed: Partial<ObservedResponse>) =>
    documentationProblems(api.openapi, { method: 'GET', path: '/plants/7', status: 200, headers: usual, body: '{"id":7,"name":"Monstera"}', ...observed });

  it('accepts a response the document describes', () => {
    expect(problems({})).to.deep.equal([]);
  });

  it('an undocumented status', () => {
    expectOne(problems({ status: 418 }), /status 418 is not documented for GET \/plants\/\{id\}/);
    expect(() => assertDocumented(api.openapi, { method: 'GET', path: '/plants/7', status: 418, headers: usual, body: '{}' })).to.throw(/418/);
  });

  it('a body that breaks the schema: wrong type, a null tag, an extra property', () => {
    expect(problems({ body: '{"id":"7","name":"Monstera"}' }).join('\n')).to.match(/body \/id must be integer/);
    expect(problems({ body: { id: 7, name: 'Monstera', tag: null } }).join('\n')).to.match(/body \/tag must be string/);
    expect(problems({ body: { id: 7, name: 'Monstera', _id: 'x' } }).join('\n')).to.match(/must NOT have additional properties/);
  });

  it('an error code that belongs to another status', () => {
    expect(problems({ status: 404, body: { error: 40400, message: 'no route' } }).join('\n')).to.match(/body \/error must be equal to one of the allowed values/);
  });

  it('an undocumented header, a missing required one, a header value outside its schema', () => {
    expectOne(problems({ headers: { ...usual, 'x-debug': 'on' } }), /header x-debug is not documented/);
    expectOne(problems({ method: 'POST', path: '/plants' }), /required header Location is missing/);
    expectOne(problems({ headers: { ...usual, 'ratelimit-remaining': 'lots' } }), /header RateLimit-Remaining: \(root\) must be integer/);
  });

  it('an undocumented content type, and a body where none is documented', () => {
    expectOne(problems({ headers: { ...usual, 'content-type': 'text/html' } }), /content type "text\/html" is not documented/);
    expectOne(problems({ method: 'DELETE', status: 204 }), /a body was sent, but this response documents none/);
  });

  it('a method or path the router would refuse, answered with anything but its refusal', () => {
    expectOne(problems({ method: 'PUT' }), /PUT is not documented on \/plants\/\{id\}, so only 405 may answer/);
    expectOne(problems({ path: '/gardens' }), /no documented path matches/);
  });
});
