import { expect } from 'chai';
import type { HttpResponse } from './http-client.js';

export const challenge = 'Bearer realm="plant-store"';
export const invalidTokenChallenge = 'Bearer realm="plant-store", error="invalid_token"';

export interface ExpectedPlant {
  readonly id: number;
  readonly name: string;
  readonly tag?: string;
}

/** Status, JSON content type, and a body of exactly `{ error: code, message: "<non-empty>" }`. */
export function expectError(response: HttpResponse, status: number, code: number, mentions?: string): void {
  const about = `${response.request} → ${response.status} ${response.text}`;
  expect(response.status, about).to.equal(status);
  expect(response.headers.get('content-type'), about).to.match(/^application\/json(?:;|$)/);
  expect(response.body, about).to.be.an('object').that.is.not.an('array');
  const body = response.body as Record<string, unknown>;
  expect(Object.keys(body).sort(), about).to.deep.equal(['error', 'message']);
  expect(Number.isInteger(body['error']), about).to.equal(true);
  expect(body['error'], about).to.equal(code);
  expect(body['message'], about).to.be.a('string').that.is.not.empty;
  if (mentions !== undefined) expect(body['message'], about).to.include(mentions);
}

/** A plant on the wire: exactly id and name, plus tag only when there is one (never null). */
export function expectPlant(value: unknown, expected: ExpectedPlant): void {
  expect(value).to.be.an('object');
  const keys = expected.tag === undefined ? ['id', 'name'] : ['id', 'name', 'tag'];
  expect(Object.keys(value as object).sort(), JSON.stringify(value)).to.deep.equal(keys);
  expect(value).to.deep.equal(expected);
}

/** A 200 JSON array of wire-shaped plants equal to `expected`, in order. */
export function expectPlantList(response: HttpResponse, expected: readonly ExpectedPlant[]): void {
  expectOk(response, 200);
  expect(response.body, response.request).to.be.an('array').with.lengthOf(expected.length);
  (response.body as unknown[]).forEach((plant, index) => expectPlant(plant, expected[index]!));
}

export function expectOk(response: HttpResponse, status: number): void {
  expect(response.status, `${response.request} → ${response.status} ${response.text}`).to.equal(status);
  if (status !== 204 && response.request.startsWith('HEAD') === false) {
    expect(response.headers.get('content-type'), response.request).to.match(/^application\/json(?:;|$)/);
  }
}

/** The methods named by `Allow`, sorted. */
export function allowedMethods(response: HttpResponse): string[] {
  return (response.headers.get('allow') ?? '').split(',').map((method) => method.trim()).filter(Boolean).sort();
}

/** The target of a `Link: <…>; rel="next"` header, or undefined when there is none. */
export function nextLink(response: HttpResponse): string | undefined {
  const header = response.headers.get('link');
  if (header === null) return undefined;
  const match = /^<([^>]+)>;\s*rel="next"$/.exec(header);
  expect(match, `malformed Link header: ${header}`).to.not.equal(null);
  return match![1]!;
}

/** Ids of a list response body. */
export function ids(response: HttpResponse): number[] {
  return (response.body as { id: number }[]).map((plant) => plant.id);
}
