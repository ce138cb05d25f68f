import { readFileSync } from 'node:fs';

/**
 * This package's version, read once at start-up so the served OpenAPI document names the
 * release that serves it. The compiled file sits in dist/composition/, two folders below
 * package.json, in the repository and in an installed package alike.
 */
export const packageVersion: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
