// Bounded waits on observable conditions, for any test (no app, no SDK imported here).

/** Waits `ms` (a test that must let time pass, e.g. to show that something does not happen). */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `condition` until it returns a truthy value (which is returned), or fails after
 *  `timeoutMs` with `message` and the last error. */
export async function waitFor<T>(condition: () => T | Promise<T>, message: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${message}${last ? `: ${String(last)}` : ''}`);
    await sleep(25);
  }
}
