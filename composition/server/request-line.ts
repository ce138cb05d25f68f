import { pino, type Logger } from 'pino';
import type { RequestLogFields } from '../../adapters/http/app/http-log.js';

/** Strings that go into JSON as they are: printable ASCII without `"` or `\`. */
const plainText = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const jsonText = (text: string): string => (plainText.test(text) ? `"${text}"` : JSON.stringify(text));
const jsonNumber = (value: number): string => (Number.isFinite(value) ? String(value) : 'null');

/**
 * The request line written straight to a JSON pino logger's destination: the line
 * `logger.info(fields, 'request')` writes (same keys, order and values, pino's own level,
 * time and base fields), built from its nine known fields without pino's walk over an
 * arbitrary object. It runs on every request, where pino's general path cost a few µs of
 * CPU more (see docs/benchmarks.md). Nothing in it needs redacting: no field is a header.
 */
export function requestLineWriter(logger: Logger): (fields: RequestLogFields) => void {
  const internals = logger as unknown as Record<symbol, unknown>;
  const stream = internals[pino.symbols.streamSym] as { write(line: string): void };
  const time = internals[pino.symbols.timeSym] as () => string;
  const bindings = internals[pino.symbols.chindingsSym] as string;
  const end = internals[pino.symbols.endSym] as string;
  const infoLevel = logger.levels.values['info']!;
  const start = (internals[pino.symbols.lsCacheSym] as Record<number, string>)[infoLevel]!;
  return (fields) => {
    if (!logger.isLevelEnabled('info')) return;
    let line = start + time() + bindings;
    if (fields.requestId !== undefined) line += `,"requestId":${jsonText(fields.requestId)}`;
    line += `,"method":${jsonText(fields.method)},"route":${fields.route === null ? 'null' : jsonText(fields.route)}`;
    if (fields.path !== undefined) line += `,"path":${jsonText(fields.path)}`;
    line += `,"status":${jsonNumber(fields.status)}`;
    if (fields.error !== undefined) line += `,"error":${jsonNumber(fields.error)}`;
    line += `,"durationMs":${jsonNumber(fields.durationMs)}`;
    if (fields.tokenHolder !== undefined) line += `,"tokenHolder":${jsonText(fields.tokenHolder)}`;
    if (fields.traceId !== undefined) line += `,"traceId":${jsonText(fields.traceId)}`;
    stream.write(`${line},"msg":"request"${end}`);
  };
}
