import { readFileSync } from 'node:fs';
import { cliPath } from './cli-process.js';

/**
 * The node flags the `plant-store` command runs with, read from its shebang line
 * (`#!/usr/bin/env -S node <flags>`), so that whatever starts the server "as the command
 * does" (the benchmarks) uses exactly these.
 */
export function cliNodeFlags(): string[] {
  const shebang = readFileSync(cliPath, 'utf8').split('\n', 1)[0]!;
  const match = /^#!\/usr\/bin\/env -S node((?: --[\w-]+=\S+)*)$/.exec(shebang);
  if (match === null) throw new Error(`unexpected shebang in ${cliPath}: ${shebang}`);
  return match[1]!.trim().split(' ').filter((flag) => flag !== '');
}
