// The cursor of a storage with one ordered log (memory, disk): the log's own id, so a cursor
// of another storage (or of a memory store since restarted) is told apart from one of this,
// and the change's sequence number in it. `<log id>-<sequence in base 36>`.

/** The cursor of change `sequence` in the log `logId` (letters and digits only). */
export function sequenceCursor(logId: string, sequence: number): string {
  return `${logId}-${sequence.toString(36)}`;
}

/** The sequence number a cursor of log `logId` names; undefined for anything else (another log's, malformed, forged). */
export function sequenceOf(cursor: string, logId: string): number | undefined {
  if (cursor.length > logId.length + 12 || !cursor.startsWith(`${logId}-`)) return undefined;
  const digits = cursor.slice(logId.length + 1);
  if (!/^[0-9a-z]{1,11}$/.test(digits)) return undefined;
  const sequence = parseInt(digits, 36);
  return Number.isSafeInteger(sequence) ? sequence : undefined;
}
