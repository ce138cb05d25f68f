/**
 * `npm run bench`: runs every benchmark unattended and writes BENCHMARKS.md at the root of
 * the project. Not part of `npm test`; targets are checked by the report, never by tests.
 *
 * Defaults meet the benchmark's definition (10 s runs, 3 interleaved rounds, 2 s warm-up,
 * 50 connections, sizes 1,000 / 100,000 / 1,000,000). For development they can be
 * shortened — a shortened run says so at the top of the report:
 *   BENCH_SECONDS=2 BENCH_ROUNDS=1 BENCH_WARMUP_SECONDS=1 npm run bench
 *   BENCH_SECTIONS=compare,breakdown,scaling,mongodb,access,disk,webhooks,sandboxes,feed,workers   (any subset; disk alone: BENCH_SECTIONS=disk)
 *   BENCH_SANDBOX_STORAGE=memory|disk        (the sandboxes section's storage; default memory)
 *   BENCH_WORKERS_ROUNDS=5                   (the workers section's rounds; default BENCH_ROUNDS)
 *   BENCH_SANDBOX_ROUNDS=9                   (the sandboxes section's rounds of servers on against off; default 3 × BENCH_ROUNDS)
 *   BENCH_MONGODB_CHANGE_LOG=on|off          (the MongoDB section's server keeps the change log; default on)
 *   BENCH_SIZES=1000,100000,1000000          BENCH_CONNECTIONS=50
 *   BENCH_OUTPUT=some/other.md               (default BENCHMARKS.md)
 * MONGODB_URI, when set, is the database of the MongoDB section (as for the tests);
 * otherwise the tests' throwaway FerretDB is used.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, release, totalmem, type } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { projectRoot } from '../support/project-root.js';
import { accessSection } from './access-section.js';
import { breakdownSection } from './breakdown-section.js';
import { diskSection } from './disk-section.js';
import { webhooksSection } from './webhooks-section.js';
import { SANDBOX_ROUNDS_PER_ROUND, sandboxesSection } from './sandboxes-section.js';
import { feedSection } from './feed-section.js';
import { workersSection } from './workers-section.js';
import { clockTicksPerSecond } from './process-cpu.js';
import { render, type Machine, type Outcome } from './report.js';
import { compareSection, mongoSection, progress, scalingSection, type SandboxStorage, type SectionName, type Settings } from './sections.js';

const require = createRequire(import.meta.url);
const DEFAULTS = { seconds: 10, rounds: 3, warmupSeconds: 2, connections: 50, sizes: [1000, 100_000, 1_000_000], sections: ['compare', 'breakdown', 'scaling', 'mongodb', 'access', 'disk', 'webhooks', 'sandboxes', 'feed', 'workers'] as SectionName[], sandboxStorage: 'memory' as SandboxStorage };

function numberFrom(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) throw new Error(`${name} must be a number from ${min} to ${max}, got "${raw}"`);
  return value;
}

function readSettings(): Settings {
  const sections = (process.env['BENCH_SECTIONS'] || DEFAULTS.sections.join(',')).split(',').map((s) => s.trim());
  for (const section of sections) {
    if (!DEFAULTS.sections.includes(section as SectionName)) throw new Error(`BENCH_SECTIONS: unknown section "${section}" (known: ${DEFAULTS.sections.join(', ')})`);
  }
  const sizes = (process.env['BENCH_SIZES'] || DEFAULTS.sizes.join(',')).split(',').map((s) => Number(s.trim()));
  if (sizes.some((n) => !Number.isInteger(n) || n < 200 || n > 5_000_000)) throw new Error('BENCH_SIZES must be integers from 200 to 5000000, smallest first');
  const sandboxStorage = process.env['BENCH_SANDBOX_STORAGE'] || DEFAULTS.sandboxStorage;
  if (sandboxStorage !== 'memory' && sandboxStorage !== 'disk') throw new Error(`BENCH_SANDBOX_STORAGE must be memory or disk, got "${sandboxStorage}"`);
  const rounds = numberFrom('BENCH_ROUNDS', DEFAULTS.rounds, 1, 50);
  return {
    seconds: numberFrom('BENCH_SECONDS', DEFAULTS.seconds, 1, 600),
    rounds,
    warmupSeconds: numberFrom('BENCH_WARMUP_SECONDS', DEFAULTS.warmupSeconds, 0, 60),
    connections: numberFrom('BENCH_CONNECTIONS', DEFAULTS.connections, 1, 1000),
    sizes,
    sections: new Set(sections as SectionName[]),
    sandboxStorage,
    workersRounds: numberFrom('BENCH_WORKERS_ROUNDS', rounds, 1, 50),
    sandboxRounds: numberFrom('BENCH_SANDBOX_ROUNDS', SANDBOX_ROUNDS_PER_ROUND * rounds, 1, 150),
  };
}

function isDefault(settings: Settings): boolean {
  return (
    settings.seconds === DEFAULTS.seconds &&
    settings.rounds === DEFAULTS.rounds &&
    settings.workersRounds >= DEFAULTS.rounds &&
    settings.sandboxRounds >= SANDBOX_ROUNDS_PER_ROUND * DEFAULTS.rounds &&
    settings.warmupSeconds === DEFAULTS.warmupSeconds &&
    settings.connections === DEFAULTS.connections &&
    settings.sizes.join() === DEFAULTS.sizes.join() &&
    settings.sections.size === DEFAULTS.sections.length
  );
}

/** The command as typed: `npm run bench` with any BENCH_ variables (MONGODB_URI's value is never shown). */
function commandLine(): string {
  const variables = Object.keys(process.env)
    .filter((key) => /^BENCH_/.test(key) && key !== 'BENCH_OUTPUT' && process.env[key] !== '')
    .sort()
    .map((key) => `${key}=${process.env[key]}`);
  if (process.env['MONGODB_URI']) variables.push('MONGODB_URI=…');
  return [...variables, 'npm run bench'].join(' ');
}

function machine(loadAverageBefore: number[]): Machine {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const version = (name: string) => (require(`${name}/package.json`) as { version: string }).version;
  return {
    cpu: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    virtual: /^flags\s*:.*\bhypervisor\b/m.test(cpuinfo),
    memoryBytes: totalmem(),
    os: `${type()} ${release()} (${process.arch})`,
    node: process.version,
    autocannon: version('autocannon'),
    jsonServer: version('json-server'),
    clockTicks: clockTicksPerSecond(),
    loadAverageBefore,
    loadAverageAfter: loadavg(),
  };
}

async function main(): Promise<void> {
  const settings = readSettings();
  const output = process.env['BENCH_OUTPUT'] ? (isAbsolute(process.env['BENCH_OUTPUT']) ? process.env['BENCH_OUTPUT'] : join(process.cwd(), process.env['BENCH_OUTPUT'])) : join(projectRoot, 'BENCHMARKS.md');
  // A fresh token for this run only: the servers check it, the report never shows it.
  const token = randomBytes(32).toString('base64url');
  const loadAverageBefore = loadavg();
  const date = new Date();
  const started = performance.now();
  progress(`benchmarks: ${settings.seconds} s runs, ${settings.rounds} rounds, ${settings.connections} connections, sections ${[...settings.sections].join(', ')}`);

  const compare = settings.sections.has('compare') ? await compareSection(settings, token) : undefined;
  const breakdown = settings.sections.has('breakdown') ? await breakdownSection(settings, token) : undefined;
  const scaling = settings.sections.has('scaling') ? await scalingSection(settings, token) : undefined;
  const mongo = settings.sections.has('mongodb') ? await mongoSection(settings, token) : undefined;
  const access = settings.sections.has('access') ? await accessSection(settings, token) : undefined;
  const disk = settings.sections.has('disk') ? await diskSection(settings, token) : undefined;
  const webhooks = settings.sections.has('webhooks') ? await webhooksSection(settings, token) : undefined;
  const sandboxes = settings.sections.has('sandboxes') ? await sandboxesSection(settings, token) : undefined;
  const feed = settings.sections.has('feed') ? await feedSection(settings, token) : undefined;
  const workers = settings.sections.has('workers') ? await workersSection(settings, token) : undefined;

  const outcome: Outcome = {
    settings,
    defaults: isDefault(settings),
    command: commandLine(),
    date,
    totalSeconds: (performance.now() - started) / 1000,
    machine: machine(loadAverageBefore),
    compare,
    breakdown,
    scaling,
    mongo,
    access,
    disk,
    webhooks,
    sandboxes,
    feed,
    workers,
  };
  const { markdown, targets } = render(outcome);
  writeFileSync(output, markdown);
  progress(`wrote ${relative(process.cwd(), output) || output}`);
  for (const target of targets) process.stdout.write(`${target.verdict} ${target.text}\n`);
  // The test database (if the tests' FerretDB was started) is stopped by its exit hook.
  process.exit(0);
}

main().catch((error: unknown) => {
  process.stderr.write(`benchmarks failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
