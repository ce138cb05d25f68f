import { execFile } from 'node:child_process';
import { accessSync, constants, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { eventually } from './eventually.js';
import { freePort } from './free-port.js';
import { tempDir, type TempDir } from './temp-dir.js';
import { killQuietly, spawnWatched, type WatchedProcess } from './watched-process.js';

/** Where the Prometheus tests find their tools: Debian's `prometheus` package (CI installs it: .ci/run). */
export interface PrometheusTools {
  readonly prometheus: string;
  readonly promtool: string;
}

/** The server and promtool on the PATH, or undefined when either is missing. */
export function prometheusTools(): PrometheusTools | undefined {
  const find = (name: string) =>
    (process.env['PATH'] ?? '')
      .split(delimiter)
      .map((dir) => join(dir, name))
      .find((path) => {
        try {
          accessSync(path, constants.X_OK);
          return true;
        } catch {
          return false;
        }
      });
  const prometheus = find('prometheus');
  const promtool = find('promtool');
  return prometheus && promtool ? { prometheus, promtool } : undefined;
}

/** How to enable the tests, for the line saying they were skipped. */
export const HOW_TO_GET_PROMETHEUS = 'install the Debian package prometheus (apt-get install prometheus; CI does, in .ci/run)';

/** Runs promtool with `args`, `input` on its standard input; resolves with its exit status and output. */
export function promtool(tools: PrometheusTools, args: readonly string[], input?: string): Promise<{ status: number; output: string }> {
  return new Promise((resolve) => {
    const child = execFile(tools.promtool, [...args], { timeout: 30_000 }, (error, stdout, stderr) => {
      const status = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ status, output: `${stdout}${stderr}` });
    });
    child.stdin!.end(input ?? '');
  });
}

export interface PrometheusOptions {
  /** `host:port` of each server to scrape, every second, at /metrics. */
  readonly targets: readonly string[];
  /** Alerting and recording rules (YAML), evaluated every second. */
  readonly rules?: string;
}

/** One answer of the query API: a series' labels and its value now. */
export interface QueryResult {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: readonly [number, string];
}

export interface Alert {
  readonly labels: Readonly<Record<string, string>>;
  readonly state: 'pending' | 'firing';
}

/**
 * A Prometheus server of the test's own: loopback, a free port, a temporary database, a
 * one-second scrape and evaluation interval. It cannot outlive the test process.
 */
export class PrometheusServer {
  static async start(tools: PrometheusTools, options: PrometheusOptions): Promise<PrometheusServer> {
    const dir = tempDir('plant-store-prometheus-');
    const port = await freePort();
    const rules = options.rules === undefined ? [] : [join(dir.path, 'rules.yml')];
    if (options.rules !== undefined) writeFileSync(rules[0]!, options.rules);
    writeFileSync(
      join(dir.path, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        '  scrape_timeout: 1s',
        '  evaluation_interval: 1s',
        ...(rules.length > 0 ? ['rule_files:', ...rules.map((file) => `  - ${JSON.stringify(file)}`)] : []),
        'scrape_configs:',
        '  - job_name: plant-store',
        '    static_configs:',
        `      - targets: ${JSON.stringify(options.targets)}`,
        '',
      ].join('\n'),
    );
    const process = await spawnWatched(tools.prometheus, [
      `--config.file=${join(dir.path, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir.path, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ], dir.path);
    let log = '';
    process.shell.stderr!.on('data', (chunk) => (log = (log + chunk).slice(-4000)));
    const server = new PrometheusServer(process, `http://127.0.0.1:${port}`, dir, () => log);
    try {
      await eventually(async () => (await fetch(`${server.url}/-/ready`).catch(() => undefined))?.ok, { what: 'Prometheus to be ready', timeoutMs: 30_000, intervalMs: 100, context: () => log });
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  private constructor(
    private readonly process: WatchedProcess,
    readonly url: string,
    private readonly dir: TempDir,
    /** The end of what Prometheus wrote to standard error. */
    readonly log: () => string,
  ) {}

  /** An instant query (PromQL) through the HTTP API. */
  async query(expression: string): Promise<QueryResult[]> {
    const answer = (await (await fetch(`${this.url}/api/v1/query?query=${encodeURIComponent(expression)}`)).json()) as { status: string; data: { result: QueryResult[] }; error?: string };
    if (answer.status !== 'success') throw new Error(`query ${expression} failed: ${answer.error}`);
    return answer.data.result;
  }

  /** The alerts pending or firing now. */
  async alerts(): Promise<Alert[]> {
    const answer = (await (await fetch(`${this.url}/api/v1/alerts`)).json()) as { data: { alerts: Alert[] } };
    return answer.data.alerts;
  }

  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.process.shell.once('exit', resolve));
    if (this.process.shell.exitCode === null) {
      killQuietly(this.process.pid, 'SIGTERM');
      const stuck = setTimeout(() => killQuietly(this.process.pid, 'SIGKILL'), 5000);
      await exited;
      clearTimeout(stuck);
    }
    this.dir.remove();
  }
}
