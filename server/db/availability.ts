// Whether the database can be reached, for the log: one line when it is lost and one when it is
// back, never one per request. Requests are not held back by this state: each one still tries
// the database (and answers 503 `service_unavailable` with Retry-After when it cannot reach it,
// see mapPgError), so service resumes with the first request after the database returns. While
// it is down a probe (`select 1`, once a second) notices its return even when no request comes.
import type { Db } from './knex.js';
import { isDbUnavailable } from './errors.js';
import { errorFields, type Logger } from '../log.js';

export class DbAvailability {
  private down = false;
  private since = 0;
  private probe: NodeJS.Timeout | undefined;
  private probing = false;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly probeMs = 1_000,
    /** Told of each change of state (the metrics, server/metrics). */
    private readonly onChange?: (down: boolean) => void,
  ) {}

  get isDown(): boolean {
    return this.down;
  }

  /** Looks at a failed request's error: a lost database marks the outage (logged once). */
  observe(err: unknown): boolean {
    if (!isDbUnavailable(err)) return false;
    if (!this.down && !this.closed) {
      this.down = true;
      this.since = Date.now();
      this.log.error({ err: errorFields(err) }, 'database unreachable: requests answer 503 until it is back');
      this.onChange?.(true);
      this.probe = setInterval(() => void this.check(), this.probeMs);
      this.probe.unref();
    }
    return true;
  }

  /** The database answered (a probe or /readyz): ends an outage. */
  answered(): void {
    if (!this.down) return;
    this.down = false;
    clearInterval(this.probe);
    this.probe = undefined;
    this.log.info({ downMs: Date.now() - this.since }, 'database reachable again');
    this.onChange?.(false);
  }

  private async check(): Promise<void> {
    if (this.probing || this.closed) return;
    this.probing = true;
    try {
      await this.db.raw('select 1');
      this.answered();
    } catch {
      // still down
    } finally {
      this.probing = false;
    }
  }

  close(): void {
    this.closed = true;
    clearInterval(this.probe);
    this.probe = undefined;
  }
}
