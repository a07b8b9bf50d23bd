// Tombstone retention: hard deletes stay as tombstones (`deleted = true`) for at least
// TOMBSTONE_RETENTION_MS so that every client pulling within that time learns of them. The purge
// job physically deletes older tombstones and raises the family's `tombstone_horizon` to the
// highest version it removed, in the same transaction; a pull from a checkpoint before the
// horizon then answers 410 `checkpoint_expired` (the client re-syncs from scratch).
import type { Deps } from '../context.js';
import { PURGE_ORDER, familiesWithOldTombstones, purgeTable, raiseHorizon } from './queries.js';
import { errorFields } from '../log.js';

export const TOMBSTONE_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** How often the server runs the purge (server.ts schedules it). */
export const PURGE_INTERVAL_MS = 6 * 60 * 60 * 1000;

export interface PurgeOptions {
  /** Tombstones older than this are removed (default 30 days). */
  retentionMs?: number;
  /** Only these families (tests); default every family. */
  familyIds?: string[];
}

export interface PurgeResult {
  families: number;
  rows: number;
}

/** Removes tombstones older than the retention period, per family, children before parents. */
export async function purgeTombstones(
  deps: Pick<Deps, 'db' | 'clock'>,
  options: PurgeOptions = {},
): Promise<PurgeResult> {
  const cutoff = new Date(deps.clock.now().getTime() - (options.retentionMs ?? TOMBSTONE_RETENTION_MS));
  let families = await familiesWithOldTombstones(deps.db, cutoff);
  if (options.familyIds) families = families.filter((id) => options.familyIds!.includes(id));
  let rows = 0;
  for (const familyId of families) {
    rows += await deps.db.transaction(async (trx) => {
      let count = 0;
      let maxVersion = 0;
      for (const { table, refs } of PURGE_ORDER) {
        const r = await purgeTable(trx, familyId, table, refs, cutoff);
        count += r.count;
        maxVersion = Math.max(maxVersion, r.maxVersion);
      }
      if (count > 0) await raiseHorizon(trx, familyId, maxVersion);
      return count;
    });
  }
  return { families: families.length, rows };
}

/** Runs the purge every `intervalMs` (unref'd: it never keeps the process alive). */
export function schedulePurge(deps: Pick<Deps, 'db' | 'clock' | 'log'>, intervalMs = PURGE_INTERVAL_MS): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    purgeTombstones(deps)
      .then((r) => {
        if (r.rows > 0) deps.log.info({ families: r.families, rows: r.rows }, 'purged old tombstones');
      })
      .catch((err: Error) => deps.log.error({ err: errorFields(err) }, 'tombstone purge failed'))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
