import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The only files of the swagger-ui-dist package the docs page is served: an explicit list,
 * looked up by exact name, so no request path ever reaches the file system.
 */
const packageFiles = new Map<string, string>([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['index.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
  ['favicon-16x16.png', 'image/png'],
]);

export interface DocsAsset {
  readonly type: string;
  readonly body: Buffer;
}

const packageDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Part of the asset URLs: a new Swagger UI gets new URLs, so assets can be cached for long. */
export const swaggerUiVersion: string = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')).version;

export const packageAssetNames: readonly string[] = [...packageFiles.keys()];

// Read once, on first use: the bundle is large and most processes never serve the page.
const loaded = new Map<string, Promise<DocsAsset>>();

/** The allow-listed package file called `name`, or undefined for any other name. */
export function packageAsset(name: string): Promise<DocsAsset> | undefined {
  const type = packageFiles.get(name);
  if (type === undefined) return undefined;
  let asset = loaded.get(name);
  if (asset === undefined) {
    asset = readFile(join(packageDir, name)).then((body) => ({ type, body }));
    // A failed read is retried next time rather than remembered.
    asset.catch(() => loaded.delete(name));
    loaded.set(name, asset);
  }
  return asset;
}
