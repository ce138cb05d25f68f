import { array, number, string } from 'yup';
import { BrokenRules } from './broken-rules.js';
import { ErrorCode } from './error-codes.js';
import { MAX_PLANT_ID, MAX_TAG_LENGTH } from './plant.js';
import { PlantStoreError } from './plant-store-error.js';
import type { PageRequest } from './ports/plant-repository.js';
import { isBoundedText } from './text-rules.js';

export const DEFAULT_PAGE_LIMIT = 1000;
export const MAX_PAGE_LIMIT = 1000;
/** Each tag filter is one index range to merge; bound the work a single request can ask for. */
export const MAX_TAG_FILTERS = 20;

/** Parameters arrive as numbers (embedded callers) or as decimal text (URLs). */
function decimalInteger(_: unknown, raw: unknown): number {
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'string' && /^\d{1,16}$/.test(raw)) return Number(raw);
  return Number.NaN;
}

function integerParameter(name: string, min: number, max: number) {
  const rule = `${name} must be an integer from ${min} to ${max}`;
  return number().transform(decimalInteger).typeError(rule).integer(rule).min(min, rule).max(max, rule);
}

const tagRule = `tag must be a string of 1 to ${MAX_TAG_LENGTH} characters, not only whitespace`;

// One schema per parameter, each run only when the parameter is given (see BrokenRules).
const limitSchema = integerParameter('limit', 1, MAX_PAGE_LIMIT);
const afterSchema = integerParameter('after', 0, MAX_PLANT_ID);
const tagsSchema = array(
  string().strict().typeError(tagRule).test('bounded', tagRule, (value) => value !== undefined && isBoundedText(value, MAX_TAG_LENGTH)),
).max(MAX_TAG_FILTERS, `tag may be given at most ${MAX_TAG_FILTERS} times`);

const plantIdSchema = integerParameter('id', 1, MAX_PLANT_ID).required('id is required');

/** Raw list parameters: `tag` may be one value or several. */
export interface PageQueryInput {
  readonly limit?: unknown;
  readonly after?: unknown;
  readonly tag?: unknown;
}

export function parsePageQuery(input: PageQueryInput = {}): PageRequest {
  const { limit: rawLimit, after: rawAfter, tag: rawTag } = input;
  for (const [name, raw] of [['limit', rawLimit], ['after', rawAfter]] as const) {
    if (Array.isArray(raw)) throw new PlantStoreError(ErrorCode.InvalidParameter, `${name} may be given only once`);
  }
  const rules = new BrokenRules();
  const limit = rawLimit === undefined ? undefined : rules.check(limitSchema, rawLimit);
  const after = rawAfter === undefined ? undefined : rules.check(afterSchema, rawAfter);
  const tags = rawTag === undefined ? undefined : rules.check(tagsSchema, Array.isArray(rawTag) ? rawTag : [rawTag]);
  rules.throwIfAny(ErrorCode.InvalidParameter);
  const request: { limit: number; after?: number; tags?: string[] } = { limit: limit ?? DEFAULT_PAGE_LIMIT };
  if (after !== undefined) request.after = after;
  if (tags !== undefined) request.tags = [...new Set(tags as string[])];
  return request;
}

/** A plant id given as a path segment or an argument: 40003 when it is not one. */
export function parsePlantId(raw: unknown): number {
  const rules = new BrokenRules();
  const id = rules.check(plantIdSchema, raw);
  rules.throwIfAny(ErrorCode.InvalidParameter);
  return id!;
}
