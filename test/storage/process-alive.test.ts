import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { isRunning } from '../../adapters/storage/disk/process-alive.js';
import { eventually } from '../support/eventually.js';

describe('whether a process runs (a lease holder, a lock holder)', () => {
  it('this process and a live child run; a child that has exited does not, even while nobody has reaped it (a zombie)', async function () {
    if (process.platform !== 'linux') this.skip();
    expect(isRunning(process.pid)).to.equal(true);
    // The shell starts `sleep 0`, prints its pid, then becomes `sleep 3`, which never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 3'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()))));
      expect(isRunning(parent.pid!)).to.equal(true);
      const state = () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0];
      await eventually(() => state() === 'Z', { timeoutMs: 2_000 });
      expect(isRunning(pid), 'a zombie').to.equal(false);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('a pid nobody has does not run', () => {
    expect(isRunning(4_194_304 + 12_345)).to.equal(false);
  });
});
