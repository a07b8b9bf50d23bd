/** Capped exponential backoff with full jitter, and a wait that can be cut short. */
export interface BackoffOptions {
  /** First delay ceiling in ms (default 500). */
  baseMs?: number;
  /** Largest delay ceiling in ms (default 30 000). */
  maxMs?: number;
}

/** `random(0, min(maxMs, baseMs × 2^attempt))`: clients that lost the same server spread out. */
export function backoffDelay(attempt: number, { baseMs = 500, maxMs = 30_000 }: BackoffOptions = {}): number {
  return Math.random() * Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
}

/**
 * Waits that end early on `wake()`: the network is back (browser `online`), the live channel
 * reconnected, the app called `sync()`, or the client stops. Every retry the SDK waits out
 * (its backoff, and RxDB's `retryTime`) waits here, so none outlives the moment it could work.
 */
export class Wakeup {
  private readonly waiting = new Set<() => void>();

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiting.add(done);
    });
  }

  wake(): void {
    for (const done of [...this.waiting]) done();
  }
}
