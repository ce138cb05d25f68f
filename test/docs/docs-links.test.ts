import { expect } from 'chai';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { settingRows } from '../../composition/config/settings.js';
import { projectRoot } from '../support/project-root.js';
import { documentationFiles, readMarkdown, slugOf, type MarkdownFile } from './markdown.js';

const files = documentationFiles();
const byPath = new Map(files.map((file) => [file.path, file]));
const external = /^[a-z][a-z0-9+.-]*:/i;
const relativeLinks = files.flatMap((file) => file.links.filter((link) => !external.test(link.target)).map((link) => ({ file, ...link })));

/** Why a relative link does not resolve, or undefined when it does. */
function problemOf(file: MarkdownFile, target: string): string | undefined {
  const hash = target.indexOf('#');
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const absolute = pathPart === '' ? join(projectRoot, file.path) : join(projectRoot, dirname(file.path), pathPart);
  const inRepository = relative(projectRoot, absolute);
  if (inRepository.startsWith('..')) return 'points outside the repository';
  if (!existsSync(absolute)) return `no such file: ${inRepository}`;
  if (anchor === undefined) return undefined;
  if (!absolute.endsWith('.md') || statSync(absolute).isDirectory()) return 'an anchor into a file that is not Markdown';
  const targetFile = byPath.get(inRepository.split(sep).join('/')) ?? readMarkdown(inRepository.split(sep).join('/'));
  return targetFile.anchors.has(anchor) ? undefined : `no heading with the anchor #${anchor} in ${targetFile.path} (it has: ${[...targetFile.anchors].join(', ')})`;
}

describe('the documentation: README.md and docs/*.md', () => {
  it(`every one of the ${relativeLinks.length} relative links in ${files.length} files names a file that exists, and a heading where it names an anchor`, () => {
    expect(relativeLinks.length).to.be.greaterThan(50);
    const problems = relativeLinks.flatMap(({ file, target, line }) => {
      const problem = problemOf(file, target);
      return problem === undefined ? [] : [`${file.path}:${line}: (${target}) ${problem}`];
    });
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  it('links every page of docs/ from the README, so every answer is one link away', () => {
    const readme = byPath.get('README.md')!;
    const linked = new Set(readme.links.map((link) => link.target.split('#')[0]));
    const unlinked = files.filter((file) => file.path.startsWith('docs/') && !linked.has(file.path)).map((file) => file.path);
    expect(unlinked, 'pages the README does not link to').to.deep.equal([]);
  });

  it('names only PLANT_STORE_ variables that are settings', () => {
    const known = new Set(settingRows.map((row) => row.env));
    const unknown = files.flatMap((file) => [...file.text.matchAll(/\bPLANT_STORE_[A-Z_]+\b/g)].map((match) => match[0]).filter((name) => !known.has(name)).map((name) => `${file.path}: ${name}`));
    expect(unknown).to.deep.equal([]);
  });

  it("makes heading anchors the way GitHub does", () => {
    expect(slugOf('Access: scopes, static tokens and an identity provider')).to.equal('access-scopes-static-tokens-and-an-identity-provider');
    expect(slugOf('The `/docs` page, and [links](x.md)')).to.equal('the-docs-page-and-links');
    expect(slugOf('On FerretDB 1.x — limits')).to.equal('on-ferretdb-1x--limits');
    expect(slugOf('snake_case stays')).to.equal('snake_case-stays');
  });
});
