// A first sync of items in phases: usable first, complete later (docs/sync.md "A first sync of
// items in phases").
//
// A pull of `items` from no checkpoint takes V0, the family's counter in the first page's
// snapshot, and walks three phases, each in (version, id) order:
//   1. active:  items neither removed nor deleted with version <= V0;
//   2. history: removed items and tombstones with version <= V0;
//   3. the ordinary walk after (V0, MAX_ID): every row written since, whatever its state.
// A row's version only grows, and every version <= V0 was committed when the first snapshot was
// taken (pull.ts: version order is commit order), so the rows with version <= V0 are, in every
// later snapshot, exactly the rows of the first one that nothing has changed since, in the state
// they had then: each is in exactly one of the first two phases. A row written after V0 is in
// neither and comes in the third, in its latest state, in commit order. No row is skipped and
// removal wins as on any pull (a removal or deletion after V0 arrives after what it replaces).
//
// The phase and V0 ride in the checkpoint's `id`, which every client sends back as it got it:
// `<row id>/<V0>/a` or `<row id>/<V0>/h` (RxDB stacks checkpoints with Object.assign, so a field
// added for the phases would stay behind in the client's checkpoint once they are over; the
// `id` is always replaced). Once a page's last row is in the third phase its checkpoint is an
// ordinary one (`<row id>/<V0>`, V0 being the counter when the walk began), and a page that
// reaches the end gives `{ version: <counter>, id: MAX_ID }` as every pull does, past the
// tombstone horizon. Every page is full until the end (a short page means "nothing more"), so
// the phases follow each other inside a page. A checkpoint without a phase (every one issued
// before, and the ordinary walk) is served by pull.ts as before.
import type { Deps } from '../context.js';
import { validationFailed } from '../errors.js';
import type { Checkpoint } from '@family-shopping/client/protocol';
import { checkpointAhead, checkpointExpired, isExpired, type PullResult } from './pull-result.js';
import { MAX_ID, MIN_ID, itemPhasePage } from './queries.js';

/** The phases of a first sync, as the last segment of a checkpoint's `id`. */
const PHASES = ['a', 'h'] as const;
type Phase = (typeof PHASES)[number];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Where a walk in phases stands: its V0, its phase and the last row it handed out there. */
interface PhasePosition {
  upTo: number;
  phase: Phase;
  version: number;
  id: string;
}

/** A pull of items that walks in phases: from no checkpoint, or from one of such a walk. */
export function isItemPhaseWalk(checkpoint: Checkpoint | null): boolean {
  return checkpoint === null || checkpoint.id.split('/').length === 3;
}

function parsePhase(cp: Checkpoint): PhasePosition {
  const [rowId = '', upTo = '', phase = ''] = cp.id.split('/');
  if (
    !UUID.test(rowId) ||
    !/^\d{1,18}$/.test(upTo) ||
    !(PHASES as readonly string[]).includes(phase) ||
    cp.version > Number(upTo)
  )
    throw validationFailed([{ path: 'query.checkpoint.id', message: 'not a checkpoint this server issued' }]);
  return { upTo: Number(upTo), phase: phase as Phase, version: cp.version, id: rowId };
}

/** A page of a first sync of items in phases (from no checkpoint or one of such a walk). */
export async function pullItemsInPhases(
  deps: Pick<Deps, 'db' | 'statementFunctions'>,
  familyId: string,
  checkpoint: Checkpoint | null,
  limit: number,
): Promise<PullResult> {
  const at = checkpoint ? parsePhase(checkpoint) : null;
  // The active phase from its cursor (or the start); the history phase from its cursor, from the
  // start while the active phase lasts. A walk in its history phase starts the active one past V0.
  const active = !at ? { version: 0, id: MIN_ID } : at.phase === 'a' ? at : { version: at.upTo, id: MAX_ID };
  const history = at?.phase === 'h' ? at : { version: 0, id: MIN_ID };
  const page = await itemPhasePage(deps.db, familyId, { upTo: at?.upTo ?? null, active, history }, limit, {
    viaFunction: deps.statementFunctions === true,
  });
  const { counters, upTo } = page;
  // As for any walk (pull.ts `checkPosition`): begun before a purge, or ahead of this family.
  if (at && isExpired({ cursor: at, issuedAt: at.upTo }, counters)) throw checkpointExpired();
  if (at && at.upTo > counters.version) throw checkpointAhead();
  if (!page.last) return { documents: [], checkpoint };
  const documents = { json: page.json, count: Math.min(page.rows, limit) };
  if (page.rows <= limit) return { documents, checkpoint: { version: counters.version, id: MAX_ID } };
  const { phase, version, id } = page.last;
  return {
    documents,
    checkpoint: { version: Number(version), id: phase === 2 ? `${id}/${upTo}` : `${id}/${upTo}/${PHASES[phase]}` },
  };
}
