// W3C Trace Context, version 00: `00-<trace id>-<parent id>-<flags>`, lower-case hex, the
// ids not all zeros. Later versions may append fields after a dash; only 00 is read here.
const version00 = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const zeros = /^0+$/;

/** The trace id of a `traceparent` header, or undefined when it is absent or malformed (then it is ignored). */
export function traceIdOf(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = version00.exec(header);
  if (match === null || zeros.test(match[1]!) || zeros.test(match[2]!)) return undefined;
  return match[1];
}
