/**
 * Whether this run is CI, where a test that cannot get what it needs (a database, a
 * browser) must fail rather than be pending. Any CI value but empty, 0 or false counts.
 */
export const inCi: boolean = !['', '0', 'false'].includes((process.env['CI'] ?? '').toLowerCase());
