import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../support/project-root.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { documentationFiles } from '../docs/markdown.js';

const run = promisify(execFile);

/** The ```ts blocks of README.md and docs/*.md, as a reader copies them, each named by where it is. */
function documentedExamples(): { file: string; code: string }[] {
  return documentationFiles().flatMap((doc) =>
    doc.blocks.filter((block) => block.lang === 'ts').map((block) => ({ file: `${doc.path.replace(/\.md$/, '').replace(/\W/g, '-')}-line-${block.line}.ts`, code: block.code })),
  );
}

// Mistakes the types must catch; each file must fail to compile, with this error.
const mistakes: Record<string, [string, RegExp]> = {
  'typo-create.ts': ["import { createPlantStore } from 'plant-store';\nconst store = await createPlantStore();\nawait store.create({ idd: 1, nmae: 'x' });\n", /TS2353|TS2561|TS2345/],
  'typo-list.ts': ["import { createPlantStore } from 'plant-store';\nconst store = await createPlantStore();\nawait store.list({ limit: 'ten' });\n", /TS2322/],
};

/**
 * A strict TypeScript project (module nodenext) that installs the packed package the way a
 * user does: the tarball's files, and the package's runtime dependencies beside it.
 */
describe('the packed package in a strict TypeScript project', function () {
  this.timeout(120_000);
  let project: TempDir | undefined;
  let dir: string;

  before(async () => {
    project = tempDir('plant-store-consumer-');
    dir = project.path;
    // The suite built dist/ already; a pack from a fresh clone builds it first (prepack).
    const { stdout } = await run('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', dir], { cwd: projectRoot });
    const tarball = join(dir, stdout.trim().split('\n').pop()!);
    const installed = join(dir, 'node_modules', 'plant-store');
    mkdirSync(installed, { recursive: true });
    await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
    const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    // Runtime dependencies, and Node's own types, which any Node project has.
    for (const name of [...Object.keys(manifest.dependencies), '@types/node', 'undici-types']) {
      mkdirSync(join(dir, 'node_modules', ...name.split('/').slice(0, -1)), { recursive: true });
      symlinkSync(join(projectRoot, 'node_modules', name), join(dir, 'node_modules', name), 'dir');
    }
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] },
      }),
    );
  });
  after(() => project?.remove());

  /** Compiles the project's src/; answers tsc's output, empty when it compiled. */
  const tsc = () =>
    run(join(projectRoot, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], { cwd: dir }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );

  it('a pack builds dist/ first (prepack), so one made from a fresh clone ships the code', () => {
    const { scripts } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts['prepack']).to.equal('npm run build');
  });

  it('compiles the examples of the README and docs/ unchanged', async () => {
    const examples = documentedExamples();
    expect(examples.length).to.be.at.least(3);
    expect(examples.some(({ file }) => file.startsWith('README-'))).to.equal(true);
    mkdirSync(join(dir, 'src'), { recursive: true });
    for (const { file, code } of examples) writeFileSync(join(dir, 'src', file), `${code}\nexport {};\n`);
    expect(await tsc()).to.equal('');
  });

  for (const [file, [code, error]] of Object.entries(mistakes)) {
    it(`refuses to compile ${file.replace('.ts', '')}: ${code.split('\n')[2]}`, async () => {
      rmSync(join(dir, 'src'), { recursive: true, force: true });
      mkdirSync(join(dir, 'src'));
      writeFileSync(join(dir, 'src', file), code);
      const output = await tsc();
      expect(output, output).to.match(error);
      expect(output).to.include(file);
      expect(readdirSync(join(dir, 'src'))).to.deep.equal([file]);
    });
  }
});
