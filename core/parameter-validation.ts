import { array, number, string } from 'yup';
import { BrokenRules } from './broken-rules.js';
import { ErrorCode } from './error-codes.js';
import { MAX_PLANT_ID, MAX_TAG_LENGTH } from './plant.js';
import type { PageRequest } from './ports/plant-repository.js';
import { isBoundedText } from './text-rules.js';

export const DEFAULT_PAGE_LIMIT = 1000;
export const MAX_PAGE_LIMIT = 1000;
/** Each tag filter is one index range to merge; bound the work a single request can ask for. */
export const MAX_TAG_FILTERS = 20;

/** What a caller may ask of a page: typed values (the HTTP adapter turns query text into them). */
export interface PageQuery {
  /** 1 to 1000; default 1000. */
  readonly limit?: number;
  /** Only plants with a larger id (a keyset cursor); 0 means from the start. */
  readonly after?: number;
  /** Plants with any of these tags. */
  readonly tags?: readonly string[];
}

/**
 * An integer parameter: its yup schema and its quick check, from one pair of bounds. The
 * quick check passes only integers from `min` to `max`, values the schema accepts as they
 * are: the usual request passes it and skips yup (about 1 µs a parameter); anything else is
 * judged by yup, whose answers and messages stay the rule book. Property tests hold the two
 * together.
 */
function integerParameter(name: string, min: number, max: number) {
  const rule = `${name} must be an integer from ${min} to ${max}`;
  return {
    rule,
    // strict: a typed API takes numbers as given; NaN (what the HTTP edge makes of "abc") fails the type.
    schema: number().strict().typeError(rule).integer(rule).min(min, rule).max(max, rule),
    accepts: (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max,
  };
}

const tagRule = `tag must be a string of 1 to ${MAX_TAG_LENGTH} characters, not only whitespace`;

// One schema per parameter, each run only when the parameter is given (see BrokenRules).
export const limitParameter = integerParameter('limit', 1, MAX_PAGE_LIMIT);
export const afterParameter = integerParameter('after', 0, MAX_PLANT_ID);
const tagsSchema = array(
  string().strict().typeError(tagRule).test('bounded', tagRule, (value) => value !== undefined && isBoundedText(value, MAX_TAG_LENGTH)),
)
  .strict()
  .typeError('tags must be a list of tags')
  .max(MAX_TAG_FILTERS, `tags may hold at most ${MAX_TAG_FILTERS} tags`);

const idParameter = integerParameter('id', 1, MAX_PLANT_ID);
export const plantIdParameter = { schema: idParameter.schema.required('id is required'), accepts: idParameter.accepts };
/** What a plant id must be, as the answers word it (for an edge that judges an id before the core sees it). */
export const PLANT_ID_RULE = idParameter.rule;

/** A given integer parameter: itself when the quick check passes it, else yup's verdict (broken rules noted). */
function checkedInteger(rules: BrokenRules, parameter: typeof limitParameter, value: number): number | undefined {
  return parameter.accepts(value) ? value : rules.check(parameter.schema, value);
}

/** Checks a page query (every broken rule named in one 40003) and fills in the defaults. */
export function parsePageQuery(query: PageQuery = {}): PageRequest {
  const rules = new BrokenRules();
  const limit = query.limit === undefined ? undefined : checkedInteger(rules, limitParameter, query.limit);
  const after = query.after === undefined ? undefined : checkedInteger(rules, afterParameter, query.after);
  const tags = query.tags === undefined ? undefined : rules.check(tagsSchema, query.tags);
  rules.throwIfAny(ErrorCode.InvalidParameter);
  const request: { limit: number; after?: number; tags?: string[] } = { limit: limit ?? DEFAULT_PAGE_LIMIT };
  if (after !== undefined) request.after = after;
  if (tags !== undefined) request.tags = [...new Set(tags as string[])];
  return request;
}

/** A plant id given as an argument: 40003 when it is not one. */
export function parsePlantId(id: unknown): number {
  if (plantIdParameter.accepts(id)) return id;
  const rules = new BrokenRules();
  const checked = rules.check(plantIdParameter.schema, id);
  rules.throwIfAny(ErrorCode.InvalidParameter);
  return checked!;
}

/** False for what no page query can be (a JavaScript caller passing a string, null …). */
export function isPageQueryObject(query: unknown): query is PageQuery | undefined {
  return query === undefined || (typeof query === 'object' && query !== null && !Array.isArray(query));
}
