import { pino, type Logger, type LoggerOptions } from 'pino';
import pretty from 'pino-pretty';
import { requestLine } from '../../adapters/http/app/request-log.js';
import { requestLineWriter } from './request-line.js';
import type { LogLevel } from '../config/settings.js';

// Fields of a request line; at a terminal they are folded into its one line of text.
const requestFields = 'requestId,method,route,path,status,error,durationMs,tokenHolder,traceId';

/**
 * The server's structured logger: JSON lines for a log collector, or, when a person watches
 * the terminal, one readable line per request (`GET /plants/7 404 40401 0.4 ms token-1`)
 * with 5xx causes below theirs. Nothing logs headers; the redaction is a second lock should
 * a field slip in.
 */
export function createLogger(level: LogLevel, destination: NodeJS.WritableStream | undefined = undefined, worker?: number): Logger {
  const options: LoggerOptions = {
    level,
    // A worker of a server group (--workers) names itself on each line.
    base: worker === undefined ? { service: 'plant-store' } : { service: 'plant-store', worker },
    // Named paths only: a wildcard path doubles the cost of every request line.
    redact: { paths: ['authorization', 'token', 'tokens', 'headers.authorization'], censor: '[redacted]' },
  };
  if (destination === undefined) {
    if (process.stdout.isTTY) return readable(options, process.stdout);
    // Standard output, written asynchronously: the request path never waits for a write,
    // the lines of one event-loop turn go out together at its end (never held back to fill
    // a buffer), and whatever is queued is written synchronously when the process exits,
    // after a SIGTERM or an uncaught exception alike.
    return jsonLines(pino(options, gatheredPerTurn(pino.destination({ dest: 1, sync: false }))));
  }
  if ((destination as { isTTY?: boolean }).isTTY !== true) return jsonLines(pino(options, destination));
  return readable(options, destination);
}

/** What gatheredPerTurn needs of sonic-boom (pino.destination). */
interface LineDestination {
  write(text: string): boolean;
  flush(callback?: (error?: Error) => void): void;
  flushSync(): void;
}

/**
 * Lines of one turn of the event loop handed to the destination together: sonic-boom, when
 * asynchronous, measures its whole pending buffer at every write (Buffer.byteLength), which
 * cost about 4 µs a request under load (a W2 profile); once per turn it costs that once. The
 * lines still waiting go to the destination first when the process exits (a SIGTERM, an
 * uncaught exception), before pino has it write everything synchronously.
 */
function gatheredPerTurn(destination: LineDestination): LineDestination {
  let pending = '';
  const handOver = () => {
    if (pending === '') return;
    const lines = pending;
    pending = '';
    destination.write(lines);
  };
  process.prependListener('exit', handOver);
  return {
    write(line) {
      if (pending === '') setImmediate(handOver);
      pending += line;
      return true;
    },
    flush(callback) {
      handOver();
      destination.flush(callback);
    },
    flushSync() {
      handOver();
      destination.flushSync();
    },
  };
}

/** A JSON-lines logger that also writes request lines the cheap way (HttpLog.request). */
function jsonLines(logger: Logger): Logger {
  return Object.assign(logger, { request: requestLineWriter(logger) });
}

/** One line per request for a person at a terminal. */
function readable(options: LoggerOptions, destination: NodeJS.WritableStream): Logger {
  return pino(
    options,
    pretty({
      destination,
      colorize: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: `pid,hostname,service,${requestFields}`,
      messageFormat: (log, messageKey) => (log[messageKey] === 'request' ? requestLine(log) : String(log[messageKey])),
    }),
  );
}
