import type { ParsedUrlQuery } from 'node:querystring';
import { ErrorCode, MAX_TAG_FILTERS, PlantStoreError, type PageQuery } from '../../../core/index.js';

/**
 * URL text to the core's typed values. Only plain decimal digits make a number (`1e3`,
 * `0x10`, ` 7`, `+7` do not); anything else becomes NaN, which the core's rules then reject
 * with the same message as any other bad value, so every bad parameter is named in one answer.
 */
export function decimal(text: string): number {
  return /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
}

/** The core's page query from `?limit=&after=&tag=…` (other parameters are ignored). */
export function pageQueryFrom(query: ParsedUrlQuery): PageQuery {
  const limit = single(query, 'limit');
  const after = single(query, 'after');
  const tag = query['tag'];
  const tags = tag === undefined ? undefined : Array.isArray(tag) ? tag : [tag];
  // Checked here, before any tag is looked at: the message names the URL parameter.
  if (tags !== undefined && tags.length > MAX_TAG_FILTERS) {
    throw new PlantStoreError(ErrorCode.InvalidParameter, `tag may be given at most ${MAX_TAG_FILTERS} times`);
  }
  const pageQuery: { limit?: number; after?: number; tags?: readonly string[] } = {};
  if (limit !== undefined) pageQuery.limit = decimal(limit);
  if (after !== undefined) pageQuery.after = decimal(after);
  if (tags !== undefined) pageQuery.tags = tags;
  return pageQuery;
}

function single(query: ParsedUrlQuery, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw new PlantStoreError(ErrorCode.InvalidParameter, `${name} may be given only once`);
  return value;
}
