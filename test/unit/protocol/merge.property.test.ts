import { expect } from 'chai';
import fc from 'fast-check';
import {
  COLLECTIONS,
  clientFields,
  docsEqual,
  fieldEqual,
  mergeDoc,
  RefusedRows,
  type CollectionName,
  type ItemDoc,
} from '@family-shopping/client/protocol';
import { arbDoc, arbMergeInput, UUIDS } from './arbitraries.js';

const RUNS = { numRuns: 300 };

type Rec = Record<string, unknown>;

function forEachCollection(name: string, body: <C extends CollectionName>(c: C) => void): void {
  for (const c of COLLECTIONS) it(`${name} (${c})`, () => body(c));
}

describe('protocol/merge: properties', () => {
  forEachCollection('is deterministic and does not mutate its inputs', (c) => {
    fc.assert(
      fc.property(arbMergeInput(c), fc.boolean(), ({ base, local, remote }, withBase) => {
        const input = { base: withBase ? base : null, local, remote };
        const before = structuredClone(input);
        const a = mergeDoc(c, input);
        const b = mergeDoc(c, structuredClone(input));
        expect(a).to.deep.equal(b);
        expect(input).to.deep.equal(before);
      }),
      RUNS,
    );
  });

  forEachCollection('is idempotent: merging the result again against the same remote yields it', (c) => {
    fc.assert(
      fc.property(arbMergeInput(c), fc.boolean(), ({ base, local, remote }, withBase) => {
        const result = mergeDoc(c, { base: withBase ? base : null, local, remote });
        expect(mergeDoc(c, { base: remote, local: result, remote })).to.deep.equal(result);
      }),
      RUNS,
    );
  });

  forEachCollection('keeps one-side changes, prefers local on both-side changes, server fields from remote', (c) => {
    fc.assert(
      fc.property(arbMergeInput(c), ({ base, local, remote }) => {
        fc.pre(!remote._deleted);
        const out = mergeDoc(c, { base, local, remote }) as Rec;
        const [b, l, r] = [base as Rec, local as Rec, remote as Rec];
        const client = new Set<string>(clientFields[c]);
        for (const f of Object.keys(r)) {
          if (!client.has(f) || (c === 'items' && f === 'removedAt')) {
            if (!client.has(f)) expect(out[f], `server field ${f}`).to.deep.equal(r[f]);
            continue;
          }
          const localChanged = !fieldEqual(f, l[f], b[f]);
          // Local's value wins where it changed; where it equals remote's, remote's spelling.
          expect(out[f], f).to.deep.equal(localChanged && !fieldEqual(f, l[f], r[f]) ? l[f] : r[f]);
          expect(fieldEqual(f, out[f], localChanged ? l[f] : r[f]), f).to.equal(true);
        }
      }),
      RUNS,
    );
  });

  forEachCollection('with no base, treats base as remote (local wins where it differs)', (c) => {
    fc.assert(
      fc.property(arbMergeInput(c), ({ local, remote }) => {
        fc.pre(!remote._deleted);
        const out = mergeDoc(c, { local, remote }) as Rec;
        for (const f of clientFields[c]) {
          if (c === 'items' && f === 'removedAt') continue;
          expect(fieldEqual(f, out[f], (local as Rec)[f]), f).to.equal(true);
        }
      }),
      RUNS,
    );
  });

  forEachCollection('a remote hard delete wins', (c) => {
    fc.assert(
      fc.property(arbMergeInput(c), fc.boolean(), ({ base, local, remote }, withBase) => {
        const r = { ...remote, _deleted: true };
        expect(mergeDoc(c, { base: withBase ? base : null, local, remote: r })).to.deep.equal(r);
      }),
      RUNS,
    );
  });

  it('removal wins: a remote removal the local side did not see (none, or another in base) is kept whatever local did', () => {
    fc.assert(
      fc.property(arbMergeInput('items'), fc.boolean(), ({ base, local, remote }, withBase) => {
        fc.pre(remote.removedAt !== null && !remote._deleted);
        fc.pre(!withBase || !fieldEqual('removedAt', base.removedAt, remote.removedAt));
        const out = mergeDoc('items', { base: withBase ? base : null, local, remote });
        expect(out.removedAt).to.equal(remote.removedAt);
        expect(out.removedByUserId).to.equal(remote.removedByUserId);
      }),
      RUNS,
    );
  });

  it('removal wins: a restore is honoured exactly when it clears the removal the server holds', () => {
    fc.assert(
      fc.property(arbMergeInput('items'), ({ base, local, remote }) => {
        fc.pre(base.removedAt !== null && remote.removedAt !== null && !remote._deleted);
        const out = mergeDoc('items', { base, local: { ...local, removedAt: null }, remote });
        const sawIt = fieldEqual('removedAt', base.removedAt, remote.removedAt);
        expect(out.removedAt).to.equal(sawIt ? null : remote.removedAt);
      }),
      RUNS,
    );
  });

  it('the merge result never clears a removal unless local cleared that very removal', () => {
    fc.assert(
      fc.property(arbMergeInput('items'), fc.boolean(), ({ base, local, remote }, withBase) => {
        fc.pre(remote.removedAt !== null && !remote._deleted);
        const b = withBase ? base : null;
        const out = mergeDoc('items', { base: b, local, remote });
        if (out.removedAt === null) {
          expect(b).to.not.equal(null);
          expect(local.removedAt).to.equal(null);
          expect(fieldEqual('removedAt', b!.removedAt, remote.removedAt)).to.equal(true);
        }
      }),
      RUNS,
    );
  });

  it('docsEqual is an equivalence on generated docs and agrees with the merge', () => {
    fc.assert(
      fc.property(arbMergeInput('items'), ({ base, local, remote }) => {
        expect(docsEqual('items', local, local)).to.equal(true);
        expect(docsEqual('items', local, remote)).to.equal(docsEqual('items', remote, local));
        // Nothing changed locally: the merge is the server's doc in client fields.
        if (docsEqual('items', local, base) && !remote._deleted) {
          expect(docsEqual('items', mergeDoc('items', { base, local, remote }), remote)).to.equal(true);
        }
      }),
      RUNS,
    );
  });
});

// ---------------------------------------------------------------------------
// Convergence: a simulated server and three offline replicas (the RxDB protocol)

type Op =
  | { kind: 'name'; value: string }
  | { kind: 'quantity'; value: number | null }
  | { kind: 'toggle' }
  | { kind: 'remove' }
  | { kind: 'restore' }
  | { kind: 'section'; value: string | null };

type Event =
  | { kind: 'edit'; replica: number; doc: number; op: Op }
  | { kind: 'push'; replica: number }
  | { kind: 'pull'; replica: number };

const REPLICAS = 3;
/** A section the simulated server refuses to move an item into (as the real one refuses a
 *  section of another store): the push is `rejected` and the server's doc returned. */
const REFUSED_SECTION = UUIDS[3];
const USERS = [
  'a0000000-0000-4000-8000-000000000001',
  'a0000000-0000-4000-8000-000000000002',
  'a0000000-0000-4000-8000-000000000003',
];

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('name' as const), value: fc.constantFrom('Milk', 'Oat milk', 'Bread', 'Eggs') }),
  fc.record({ kind: fc.constant('quantity' as const), value: fc.constantFrom(null, 1, 2, 0.5) }),
  fc.constant({ kind: 'toggle' as const }),
  fc.constant({ kind: 'remove' as const }),
  fc.constant({ kind: 'remove' as const }),
  fc.constant({ kind: 'restore' as const }),
  fc.record({
    kind: fc.constant('section' as const),
    value: fc.constantFrom(null, UUIDS[0], UUIDS[1], REFUSED_SECTION),
  }),
);

function arbEvents(docCount: number): fc.Arbitrary<Event[]> {
  const replica = fc.integer({ min: 0, max: REPLICAS - 1 });
  return fc.array(
    fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({
          kind: fc.constant('edit' as const),
          replica,
          doc: fc.integer({ min: 0, max: docCount - 1 }),
          op: arbOp,
        }),
      },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('push' as const), replica }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('pull' as const), replica }) },
    ),
    { maxLength: 60 },
  );
}

interface Replica {
  user: string;
  refused: RefusedRows;
  /** Per doc: RxDB's fork state (current) and assumed master state. */
  docs: Map<string, { current: ItemDoc; assumed: ItemDoc }>;
}

class Simulation {
  clock = 0;
  server = new Map<string, ItemDoc>();
  replicas: Replica[];
  /** Per user: the removedAt values its restore ops cleared (the removals it "saw"). */
  restored = new Map<string, Set<string>>(USERS.map((u) => [u, new Set<string>()]));
  removeOps = 0;
  restoreOps = 0;
  conflicts = 0;
  refusals = 0;
  /** Docs a push of which was refused (the whole row, a removal in it included, was reverted). */
  refusedDocs = new Set<string>();

  constructor(initial: ItemDoc[]) {
    for (const d of initial) this.server.set(d.id, { ...d });
    this.replicas = USERS.map((user) => ({
      user,
      refused: new RefusedRows(),
      docs: new Map(initial.map((d) => [d.id, { current: { ...d }, assumed: { ...d } }])),
    }));
  }

  now(): string {
    return new Date(Date.UTC(2025, 0, 1) + ++this.clock * 1000).toISOString();
  }

  edit(r: Replica, id: string, op: Op): void {
    const slot = r.docs.get(id)!;
    const d = { ...slot.current };
    switch (op.kind) {
      case 'name':
        d.name = op.value;
        break;
      case 'quantity':
        d.quantity = op.value;
        break;
      case 'toggle':
        d.checked = !d.checked;
        break;
      case 'section':
        d.sectionId = op.value;
        break;
      case 'remove':
        if (d.removedAt !== null) return;
        d.removedAt = this.now();
        this.removeOps++;
        break;
      case 'restore':
        if (d.removedAt === null) return;
        this.restored.get(r.user)!.add(d.removedAt);
        d.removedAt = null;
        this.restoreOps++;
        break;
    }
    slot.current = d;
  }

  /** The server's push handler: apply when assumedMasterState matches, else conflict; a move
   *  into REFUSED_SECTION is refused (listed in `rejected`, the server doc among conflicts). */
  serverPush(
    user: string,
    rows: { assumedMasterState: ItemDoc; newDocumentState: ItemDoc }[],
  ): { conflicts: ItemDoc[]; rejected: string[] } {
    const conflicts: ItemDoc[] = [];
    const rejected: string[] = [];
    for (const row of rows) {
      const prev = this.server.get(row.newDocumentState.id)!;
      if (!docsEqual('items', row.assumedMasterState, prev)) {
        conflicts.push({ ...prev });
        this.conflicts++;
        continue;
      }
      const next = row.newDocumentState;
      if (next.sectionId === REFUSED_SECTION && prev.sectionId !== REFUSED_SECTION) {
        rejected.push(next.id);
        conflicts.push({ ...prev });
        this.refusals++;
        this.refusedDocs.add(next.id);
        continue;
      }
      const now = this.now();
      const removedChanged = !fieldEqual('removedAt', prev.removedAt, next.removedAt);
      if (prev.removedAt !== null && removedChanged) {
        // Invariant: a removal on the server is only ever cleared (or replaced by a
        // newer removal) by a push from the client that saw that very removal and
        // restored it.
        expect(
          this.restored.get(user)!.has(prev.removedAt),
          `removal ${prev.removedAt} cleared or replaced by ${user} without restoring it`,
        ).to.equal(true);
      }
      this.server.set(next.id, {
        ...next,
        updatedAt: now,
        checkedAt: next.checked === prev.checked ? prev.checkedAt : next.checked ? now : null,
        removedByUserId: !removedChanged ? prev.removedByUserId : next.removedAt === null ? null : user,
      });
    }
    return { conflicts, rejected };
  }

  push(r: Replica): void {
    const rows = [...r.docs.values()]
      .filter((s) => !docsEqual('items', s.current, s.assumed))
      .map((s) => ({ assumedMasterState: s.assumed, newDocumentState: s.current }));
    if (rows.length === 0) return;
    const { conflicts, rejected } = this.serverPush(r.user, rows);
    // The SDK's push handler notes the refused rows; its conflict handler takes them as is.
    r.refused.note('items', rejected);
    const conflicted = new Set(conflicts.map((d) => d.id));
    for (const row of rows) {
      if (!conflicted.has(row.newDocumentState.id)) r.docs.get(row.newDocumentState.id)!.assumed = row.newDocumentState;
    }
    for (const real of conflicts) {
      const slot = r.docs.get(real.id)!;
      // RxDB: isEqual → no conflict to resolve; else resolve (conflictHandlerFor: a refused row
      // reverts to the server's doc, any other goes through the merge).
      const refused = r.refused.take('items', real.id);
      slot.current = docsEqual('items', real, slot.current)
        ? slot.current
        : refused
          ? { ...real }
          : mergeDoc('items', { base: slot.assumed, local: slot.current, remote: real });
      slot.assumed = real;
    }
  }

  pull(r: Replica): void {
    for (const [id, real] of this.server) {
      const slot = r.docs.get(id)!;
      // RxDB downstream: a fork with unpushed changes is left alone (upstream resolves).
      if (docsEqual('items', slot.current, slot.assumed)) {
        slot.current = { ...real };
        slot.assumed = { ...real };
      }
    }
  }

  pending(): boolean {
    return this.replicas.some((r) => [...r.docs.values()].some((s) => !docsEqual('items', s.current, s.assumed)));
  }

  settle(): number {
    for (let round = 1; round <= 20; round++) {
      for (const r of this.replicas) this.push(r);
      for (const r of this.replicas) this.pull(r);
      if (!this.pending()) return round;
    }
    throw new Error('replicas did not settle in 20 rounds');
  }
}

describe('protocol/merge: convergence of 3 offline replicas', () => {
  const arbInitial = fc.array(arbDoc('items', { deletedFreq: 1_000_000 }), { minLength: 1, maxLength: 3 }).map((docs) =>
    docs.map((d, i) => ({
      ...d,
      id: `d0000000-0000-4000-8000-00000000000${i}`,
      removedByUserId: d.removedAt === null ? null : USERS[0]!,
      _deleted: false,
    })),
  );

  it('all replicas end equal to the server, unrestored removals stay in effect, refused changes revert', () => {
    let conflicts = 0;
    let clearedRemovals = 0;
    let refusals = 0;
    fc.assert(
      fc.property(
        arbInitial.chain((initial) => fc.tuple(fc.constant(initial), arbEvents(initial.length))),
        ([initial, events]) => {
          const sim = new Simulation(initial);
          const removedBefore = new Set(initial.filter((d) => d.removedAt !== null).map((d) => d.id));
          const removedBy = new Set<string>();
          const restoredAny = new Set<string>();
          for (const e of events) {
            const r = sim.replicas[e.replica]!;
            if (e.kind === 'edit') {
              const id = initial[e.doc]!.id;
              const [rm, rs] = [sim.removeOps, sim.restoreOps];
              sim.edit(r, id, e.op);
              if (sim.removeOps > rm) removedBy.add(id);
              if (sim.restoreOps > rs) restoredAny.add(id);
            } else if (e.kind === 'push') sim.push(r);
            else sim.pull(r);
          }
          sim.settle();
          conflicts += sim.conflicts;
          refusals += sim.refusals;

          for (const r of sim.replicas) {
            for (const [id, real] of sim.server) {
              const slot = r.docs.get(id)!;
              expect(slot.current, `replica ${r.user} doc ${id}`).to.deep.equal(real);
              expect(slot.assumed).to.deep.equal(real);
            }
          }
          for (const [id, real] of sim.server) {
            // A removal (made offline by any replica, or there from the start) with no
            // restore anywhere is still in effect.
            // (A refused row is not applied at all: a removal pushed in it is reverted with it.)
            const removed = removedBefore.has(id) || (removedBy.has(id) && !sim.refusedDocs.has(id));
            if (removed && !restoredAny.has(id)) {
              expect(real.removedAt, `doc ${id} lost a removal`).to.not.equal(null);
            }
            expect(real.removedByUserId === null).to.equal(real.removedAt === null);
            // A refused move never landed (and settle() proved nobody kept pushing it).
            const first = initial.find((d) => d.id === id)!;
            if (first.sectionId !== REFUSED_SECTION) expect(real.sectionId).to.not.equal(REFUSED_SECTION);
            if (real.removedAt === null && (removedBy.has(id) || removedBefore.has(id))) clearedRemovals++;
          }
        },
      ),
      { numRuns: 500 },
    );
    // The runs do exercise the conflict path and honoured restores.
    expect(conflicts).to.be.greaterThan(50);
    expect(clearedRemovals).to.be.greaterThan(10);
    expect(refusals).to.be.greaterThan(10);
  });

  it('scenario: A removes, B edits and C checks concurrently, then everyone syncs', () => {
    const [d] = fc.sample(arbDoc('items', { deletedFreq: 1_000_000 }), { numRuns: 1, seed: 42 });
    const initial: ItemDoc = {
      ...d!,
      id: 'd0000000-0000-4000-8000-000000000000',
      removedAt: null,
      removedByUserId: null,
      _deleted: false,
    };
    const sim = new Simulation([initial]);
    const [a, b, c] = sim.replicas as [Replica, Replica, Replica];
    sim.edit(b, initial.id, { kind: 'name', value: 'Oat milk' });
    sim.edit(c, initial.id, { kind: 'toggle' });
    sim.edit(a, initial.id, { kind: 'remove' });
    sim.push(b);
    sim.push(c);
    sim.push(a);
    sim.settle();
    const real = sim.server.get(initial.id)!;
    expect(real.name).to.equal('Oat milk');
    expect(real.checked).to.equal(!initial.checked);
    expect(real.removedAt).to.not.equal(null);
    expect(real.removedByUserId).to.equal(a.user);
    // B saw the removal after pulling and restores it: honoured.
    sim.edit(b, initial.id, { kind: 'restore' });
    // Meanwhile C, which had not pulled since, edits the name offline.
    sim.edit(c, initial.id, { kind: 'name', value: 'Milk' });
    sim.push(b);
    sim.push(c);
    sim.settle();
    const after = sim.server.get(initial.id)!;
    expect(after.removedAt).to.equal(null);
    expect(after.name).to.equal('Milk');
  });
});
