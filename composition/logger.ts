import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogLevel } from './config.js';

/**
 * The server's structured logger: JSON lines, or readable lines when a person watches the
 * terminal. Nothing logs headers; the redaction is a second lock should a field slip in.
 */
export function createLogger(level: LogLevel, destination: NodeJS.WritableStream = process.stdout): Logger {
  const options = {
    level,
    base: { service: 'plant-store' },
    // Named paths only: a wildcard path doubles the cost of every request line.
    redact: { paths: ['authorization', 'token', 'tokens', 'headers.authorization'], censor: '[redacted]' },
  };
  const isTerminal = (destination as { isTTY?: boolean }).isTTY === true;
  if (isTerminal) {
    return pino(options, pretty({ destination, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' }));
  }
  return pino(options, destination);
}
