import type { Log } from '../../core/index.js';

export interface LogLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

/** A log that keeps its lines, to be read by the test. */
export function recordingLog(): Log & { readonly lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (fields: object, message: string) => void lines.push({ level, fields: fields as Record<string, unknown>, message });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}
