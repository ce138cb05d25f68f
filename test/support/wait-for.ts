/** Polls `probe` every 20 ms until it answers; fails after `timeoutMs` showing `context()`. */
export async function waitFor<T>(probe: () => T | undefined, context: () => string = () => '', timeoutMs = 10_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`gave up waiting after ${timeoutMs} ms:\n${context()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
