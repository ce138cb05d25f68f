import { fileURLToPath } from 'node:url';

/** The repository root; tests run compiled from dist/test/…, so walk up from there. */
export const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));
