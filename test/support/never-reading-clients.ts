import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';

/** Resident memory of a process on this machine, in bytes (Linux /proc: VmRSS, in kB of 1,024 bytes). */
export function residentBytes(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (line === null) throw new Error(`no VmRSS for process ${pid}`);
  return Number(line[1]) * 1024;
}

/** The same in MB (of 2^20 bytes). */
export const residentMb = (pid: number): number => residentBytes(pid) / 2 ** 20;

export interface NeverReadingFigures {
  readonly rssBeforeMb: number;
  readonly rssPeakMb: number;
  /** Slowest /healthz another client saw during the window; Infinity when one got no answer. */
  readonly slowestHealthzMs: number;
  readonly healthzChecks: number;
}

export interface NeverReadingLoad {
  /** Server origin, e.g. http://127.0.0.1:40123. */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** One token per connection: many principals, as a rate limit per token would not stop. */
  readonly tokens: readonly string[];
  readonly requestsPerConnection: number;
  /** How long to watch after the requests are written. */
  readonly windowMs: number;
}

/**
 * Opens one connection per token, pipelines `GET /plants` requests on each and never reads
 * an answer, then watches the server's RSS and how long /healthz takes for another client.
 * Every socket is destroyed before it resolves.
 */
export async function loadWithNeverReadingClients(load: NeverReadingLoad): Promise<NeverReadingFigures> {
  const rssBeforeMb = residentMb(load.pid);
  let rssPeakMb = rssBeforeMb;
  const sockets: Socket[] = [];
  try {
    for (const token of load.tokens) {
      const socket = connect(load.port, '127.0.0.1');
      socket.on('error', () => {});
      // Never read: no data listener, and paused, so the kernel buffers fill up.
      socket.pause();
      socket.write(`GET /plants HTTP/1.1\r\nHost: plant-store\r\nAuthorization: Bearer ${token}\r\n\r\n`.repeat(load.requestsPerConnection));
      sockets.push(socket);
    }
    let slowestHealthzMs = 0;
    let healthzChecks = 0;
    const until = performance.now() + load.windowMs;
    while (performance.now() < until) {
      const started = performance.now();
      // A bare fetch: this times an answer and gives up after 2 s (the checked client has no
      // time limit), and the answer is only judged healthy or not.
      const ok = await fetch(`${load.url}/healthz`, { signal: AbortSignal.timeout(2000) }).then(
        (response) => response.ok,
        () => false,
      );
      slowestHealthzMs = Math.max(slowestHealthzMs, ok ? performance.now() - started : Infinity);
      healthzChecks++;
      rssPeakMb = Math.max(rssPeakMb, residentMb(load.pid));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { rssBeforeMb, rssPeakMb, slowestHealthzMs, healthzChecks };
  } finally {
    for (const socket of sockets) socket.destroy();
  }
}
