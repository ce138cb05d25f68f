// The trace id of the call under way, for the deliveries a change makes (Subscriptions reads
// it). Held only while a call runs synchronously: a use case makes its deliveries before its
// first await, so that is when they are made; once the call awaits, the slot is already
// restored and no other request's work can read it. A change whose deliveries were made
// after an await would carry no trace id — never a wrong one. (AsyncLocalStorage would
// follow awaits too, but on Node 20 it turns on promise hooks for the whole process at its
// first use: every promise of every request would pay for it.)

let current: string | undefined;

/** Runs `call` with `traceId` as the current trace id (restored when `call` returns); undefined: just runs it. */
export function inTrace<T>(traceId: string | undefined, call: () => T): T {
  if (traceId === undefined) return call();
  const outer = current;
  current = traceId;
  try {
    return call();
  } finally {
    current = outer;
  }
}

/** The trace id of the call under way, if it has one. */
export function currentTraceId(): string | undefined {
  return current;
}
