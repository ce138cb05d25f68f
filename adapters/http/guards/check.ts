import type { Context } from 'koa';

/**
 * One check before an operation: throws (a PlantStoreError) to refuse, returns nothing to
 * let the request on, or a promise when it must wait (a token verified over the network).
 */
export type Check = (ctx: Context) => void | Promise<void>;
