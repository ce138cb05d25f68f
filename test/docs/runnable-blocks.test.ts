import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { projectRoot } from '../support/project-root.js';
import { tempDir } from '../support/temp-dir.js';
import { documentationFiles, type CodeBlock } from './markdown.js';

// The marker a ```sh block's previous line carries to be run here (docs/testing.md tells how).
const marker = /^runnable(?:,\s*expects:\s*(.+))?$/;
const blockTimeoutMs = 60_000;

interface Runnable {
  readonly where: string;
  readonly block: CodeBlock;
  /** Text the output must hold, from the marker. */
  readonly expects: string | undefined;
}

const runnable: Runnable[] = documentationFiles().flatMap((file) =>
  file.blocks.flatMap((block) => {
    const match = marker.exec(block.marker);
    if (match === null) return [];
    if (block.lang !== 'sh') throw new Error(`${file.path}:${block.line}: only sh blocks can be runnable`);
    return [{ where: `${file.path}:${block.line}`, block, expects: match[1] }];
  }),
);

/** A block running in bash, in a process group of its own. */
interface Run {
  readonly child: ChildProcess;
  output(): string;
  /** Undefined while bash runs; then its exit status (null when a signal ended it). */
  exitStatus(): number | null | undefined;
}

function start(code: string, env: NodeJS.ProcessEnv): Run {
  let output = '';
  let status: number | null | undefined;
  // detached: bash leads a new process group, so everything it starts can be killed together.
  const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', code], { cwd: projectRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  child.once('exit', (code, signal) => (status = signal === null ? code : null));
  return { child, output: () => output, exitStatus: () => status };
}

/** The group's processes still alive (a zombie waiting for its parent to reap it counts as gone). */
function liveMembers(group: number): number[] {
  if (!existsSync('/proc/self/stat')) {
    try {
      process.kill(-group, 0);
      return [group];
    } catch {
      return [];
    }
  }
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        // pid (comm) state ppid pgrp …; comm may hold spaces, so read after its last ')'.
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop()!.trim().split(' ');
        return fields[0] !== 'Z' && Number(fields[2]) === group ? [Number(pid)] : [];
      } catch {
        return [];
      }
    });
}

/** SIGTERM to the whole group, SIGKILL to whatever is left after 10 s; answers what was still alive before. */
async function killGroup(group: number): Promise<number[]> {
  const alive = liveMembers(group);
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-group, name);
    } catch {
      // the group is gone already
    }
  };
  signal('SIGTERM');
  try {
    await eventually(() => liveMembers(group).length === 0, { timeoutMs: 10_000, intervalMs: 50 });
  } catch {
    signal('SIGKILL');
    await eventually(() => liveMembers(group).length === 0, { timeoutMs: 5_000, intervalMs: 50 });
  }
  return alive;
}

/** The environment a block gets: free ports, a fresh data directory, no settings of the caller's own. */
async function blockEnvironment(dir: string): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(PLANT_STORE_|MONGODB_)/.test(name) && !['PORT', 'HOST', 'RECEIVER_PORT'].includes(name)) env[name] = value;
  }
  const port = await freePort();
  let receiverPort = await freePort();
  while (receiverPort === port) receiverPort = await freePort();
  return {
    ...env,
    // The `node` of this test run, first on the PATH.
    PATH: `${dirname(process.execPath)}${delimiter}${env['PATH'] ?? ''}`,
    PORT: String(port),
    RECEIVER_PORT: String(receiverPort),
    PLANT_STORE_DATA_DIR: join(dir, 'plant-store-data'),
    TMPDIR: dir,
  };
}

describe('the runnable sh blocks of README.md and docs/*.md', function () {
  this.timeout(blockTimeoutMs + 30_000);

  it('include the webhook recipe, which expects a verified delivery', () => {
    const recipe = runnable.find((entry) => entry.where.startsWith('docs/webhooks.md') && entry.block.code.includes('webhook-receiver.mjs'));
    expect(recipe, 'the local receiver recipe in docs/webhooks.md is marked runnable').not.to.equal(undefined);
    expect(recipe!.expects).to.match(/^verified plant\.created \{/);
  });

  for (const { where, block, expects } of runnable) {
    it(`${where} runs${expects === undefined ? '' : ` and prints ${expects}`}`, async () => {
      using dir = tempDir('plant-store-docs-');
      const run = start(block.code, await blockEnvironment(dir.path));
      let leftAlive: number[] = [];
      try {
        await eventually(
          () => {
            const status = run.exitStatus();
            if (status !== undefined && status !== 0) throw new Error(`the block exited with ${status}:\n${run.output()}`);
            return status === 0 && (expects === undefined || run.output().includes(expects));
          },
          { timeoutMs: blockTimeoutMs, intervalMs: 100, what: `${where} to end${expects === undefined ? '' : ` and print ${expects}`}`, context: () => `output so far:\n${run.output()}` },
        );
      } finally {
        leftAlive = await killGroup(run.child.pid!);
      }
      expect(liveMembers(run.child.pid!), 'processes of the block still alive').to.deep.equal([]);
      if (where.startsWith('docs/webhooks.md')) {
        // The receiver verified the signature of the delivery the block's POST caused. Not
        // anchored at a line's start: the receiver and curl write to one output, and the
        // receiver's line may land right after curl's body, before curl's own newline.
        expect(run.output(), run.output()).to.match(/verified plant\.created \{"id":7,"name":"Monstera","tag":"tropical"\}$/m);
        expect(run.output()).not.to.match(/^refused:/m);
        expect(leftAlive.length, 'the receiver and the server were running in the background').to.be.at.least(2);
      }
    });
  }
});
