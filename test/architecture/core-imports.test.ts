import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { projectRoot } from '../support/project-root.js';

const coreDir = join(projectRoot, 'core');
const specifierPattern = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** What a core file imports that it may not: anything but yup, node: built-ins and core/ itself. */
export function forbiddenImports(file: string, source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(specifierPattern)) {
    const specifier = (match[1] ?? match[2] ?? match[3])!;
    if (specifier === 'yup' || specifier.startsWith('node:')) continue;
    if (specifier.startsWith('.')) {
      const target = resolve(dirname(file), specifier);
      if (target === coreDir || target.startsWith(coreDir + sep)) continue;
    }
    found.push(specifier);
  }
  return found;
}

describe('architecture: the core stays framework-free', () => {
  it('no file in core/ imports from outside core/ (yup and node: built-ins aside)', () => {
    const files = sourceFiles(coreDir);
    expect(files.length).to.be.greaterThan(5);
    const offenders = files.flatMap((file) =>
      forbiddenImports(file, readFileSync(file, 'utf8')).map((specifier) => `${relative(projectRoot, file)} imports ${specifier}`),
    );
    expect(offenders).to.deep.equal([]);
  });

  it('the check catches adapters, frameworks and bare built-ins', () => {
    const file = join(coreDir, 'use-cases', 'example.ts');
    const source = [
      "import Koa from 'koa';",
      "import { MongoClient } from 'mongodb';",
      "import { injectable } from 'tsyringe';",
      "import type { X } from '../../adapters/http/create-http-app.js';",
      "export { y } from '../../composition/index.js';",
      "import 'reflect-metadata';",
      "const lazy = await import('@koa/router');",
      "import fs from 'fs';",
      "import { object } from 'yup';",
      "import { createHash } from 'node:crypto';",
      "import { Plant } from '../plant.js';",
    ].join('\n');
    expect(forbiddenImports(file, source)).to.deep.equal([
      'koa',
      'mongodb',
      'tsyringe',
      '../../adapters/http/create-http-app.js',
      '../../composition/index.js',
      'reflect-metadata',
      '@koa/router',
      'fs',
    ]);
  });
});
