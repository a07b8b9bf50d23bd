/**
 * Refreshes the access token ahead of its expiry while this client replicates, so requests and
 * the live channel never run on an expired token (a 401 still refreshes on demand, Rest). Due a
 * quarter of the token's lifetime before it expires (session.ts `refreshDelay`), judged on the
 * server's clock as the device estimates it, and never in a tight loop.
 */
import { backoffDelay, type BackoffOptions, type Wakeup } from '../backoff.js';
import { refreshDelay, type Session } from '../session.js';

/** What the refresh needs of Auth. */
export interface RefreshableSession {
  readonly session: Session | null;
  /** The server's clock as this device estimates it (ms). */
  serverNow(): number;
  refresh(stale?: string): Promise<Session | null>;
}

export class SessionRefresh {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  private active = false;

  constructor(
    private readonly auth: RefreshableSession,
    /** A failed refresh is tried again after a backoff, or as soon as the network is back. */
    private readonly wakeup: Pick<Wakeup, 'wait'>,
    private readonly backoff?: BackoffOptions,
  ) {}

  /** This client replicates: keep the session fresh. */
  start(): void {
    this.active = true;
    this.schedule();
  }

  stop(): void {
    this.active = false;
    clearTimeout(this.timer);
  }

  /** (Re)plans the next refresh for the current token (e.g. after it was refreshed). */
  schedule(): void {
    clearTimeout(this.timer);
    const session = this.auth.session;
    if (!this.active || !session) return;
    const due = refreshDelay(session.accessToken, this.auth.serverNow());
    if (due === null) return;
    // Never in a tight loop, whatever the clocks say: at least a second between refreshes.
    const delay = Math.max(due, 1_000);
    this.timer = setTimeout(() => {
      this.auth.refresh(session.accessToken).then(
        () => {
          this.failures = 0;
        },
        () => {
          // offline or server busy: try again after a backoff, or as soon as the network is
          // back (requests refresh on 401 meanwhile)
          void this.wakeup.wait(backoffDelay(this.failures++, this.backoff)).then(() => {
            if (this.auth.session === session) this.schedule();
          });
        },
      );
    }, delay);
  }
}
