// Live propagation: device A adds an item through the SDK → the item is in device B's local
// RxDB database. N = 1, 10, 100 receiving devices, each in a worker thread of its own (RxDB
// memory storage), all in one family; the writer is one more device. Measured four ways in
// the same run, rounds interleaved:
//   - SDK with live patches: the server's `Changed` frame carries the committed docs and the
//     devices apply them without a pull (contract §7);
//   - SDK without live patches: the same devices, their `Changed` frames stripped of `docs`
//     on receipt (what the server sends above the patch bound), so each device pulls;
//   - PouchDB 9 live sync (the peer): express-pouchdb (memory adapter) as the server, the
//     writer and N listeners each a PouchDB in a worker thread of its own, live replication
//     with PouchDB's defaults;
//   - RxDB floor: N bare RxDB databases (rxdb-floor-device.ts: the SDK's nine collections and
//     schemas, replicated as the SDK does, no SDK code) fed by a bare `ws` server that sends
//     each of them one pre-encoded frame per write, a pull-shaped page of one item doc, which
//     each device hands to its items `pull.stream$`. Its clock starts when the bench asks the
//     bare server to send: no writer, push, commit or validation, so its p99 is a lower bound of
//     any system whose devices apply live docs through RxDB's replication, on this machine.
// The clock starts when A's write is called and stops when the receiving database emits the
// insert (absolute clocks, one machine); for the SDK, the arrival of the write's `Changed` frame
// at the device is reported too (what the write, push, commit and frame take; the rest is the
// device applying it, or pulling); for the floor, the arrival of its one frame. Rounds of W writes, one write at a time (the next once
// every device has the item); p50/p99 per round; medians and min–max of the rounds.
//
//   npx tsx bench/live-propagation.ts          (BENCH_DEVICES=1,10 picks the sizes)
import path from 'node:path';
import { BENCH_DIR, backend, backendName, machine, now, pick, sleep, today, SMOKE } from './lib/common.js';
import { ascending, fmtSpread, quantile, ratioSpread, spread } from './lib/stats.js';
import { forkRemote, startMany, workerRemote, type Remote } from './lib/rpc.js';
import { Service } from './lib/service.js';
import { ensurePeers } from './lib/peers.js';
import { bundleWorker } from './lib/bundle.js';
import { writeResult } from './lib/report.js';
import { checkpointAtVersion, pullUrl, type Doc } from '@family-shopping/client/protocol';

const SIZES = (process.env.BENCH_DEVICES ?? pick('1,10,100', '1,3')).split(',').map(Number);
const ROUNDS = pick(3, 2);
const WRITES = pick(8, 3);
const WARMUP = pick(3, 1);
const ARRIVAL_TIMEOUT_MS = 30_000;

type System = 'patches' | 'pulls' | 'pouchdb' | 'floor';
const SYSTEMS: System[] = ['patches', 'pulls', 'pouchdb', 'floor'];
const LABEL: Record<System, string> = {
  patches: 'SDK, live patches',
  pulls: 'SDK, without live patches (pull per Changed)',
  pouchdb: 'PouchDB 9 live sync',
  floor: 'RxDB floor (bare ws broadcast into pull.stream$, no SDK, no server)',
};

/** Arrival times per item id and receiver. */
class Arrivals {
  private readonly seen = new Map<string, Map<number, number>>();
  /** Arrival times of `Changed` frames (SDK devices) or broadcast frames (floor devices) per
   *  receiver. */
  private readonly frames = new Map<number, number[]>();
  private waiter: (() => void) | undefined;
  listen(receivers: Remote[]): void {
    receivers.forEach((r, i) =>
      r.on('event', (m: { arrival?: string; frames?: number[]; t?: number }) => {
        if (m.frames?.length) {
          let list = this.frames.get(i);
          if (!list) this.frames.set(i, (list = []));
          list.push(...m.frames);
        }
        if (!m.arrival) return;
        let by = this.seen.get(m.arrival);
        if (!by) this.seen.set(m.arrival, (by = new Map()));
        if (!by.has(i)) by.set(i, m.t!);
        this.waiter?.();
      }),
    );
  }
  /** Latencies of `id` at every receiver; missing receivers after the timeout are counted. */
  async wait(id: string, t0: number, n: number): Promise<{ latencies: number[]; frames: number[]; missing: number }> {
    const deadline = Date.now() + ARRIVAL_TIMEOUT_MS;
    while ((this.seen.get(id)?.size ?? 0) < n && Date.now() < deadline) {
      await new Promise<void>((r) => {
        this.waiter = r;
        setTimeout(r, 100);
      });
    }
    this.waiter = undefined;
    const by = this.seen.get(id) ?? new Map<number, number>();
    this.seen.delete(id);
    // Each receiver's first Changed frame after the write: the one this write's commit sent.
    const frames: number[] = [];
    for (const [i, list] of this.frames) {
      const first = list.filter((t) => t >= t0).sort((a, b) => a - b)[0];
      if (first !== undefined && by.has(i) && first <= by.get(i)!) frames.push(first - t0);
      this.frames.set(i, []);
    }
    return { latencies: [...by.values()].map((t) => t - t0), frames, missing: n - by.size };
  }
}

async function main() {
  ensurePeers();
  const [sdkFile, pouchFile, floorFile] = await Promise.all([
    bundleWorker('sdk-device'),
    bundleWorker('pouch-device'),
    bundleWorker('rxdb-floor-device'),
  ]);
  // Every receiving device is a session of one user: lift the per-user socket cap above them.
  const service = await Service.start({ MAX_SOCKETS_PER_USER: String(Math.max(...SIZES) + 20) });
  const pouchServer = await forkRemote(
    'pouchdb-server',
    path.join(BENCH_DIR, 'lib', 'pouch-server-child.ts'),
    process.env,
  );
  const bare = await forkRemote('bare-ws', path.join(BENCH_DIR, 'lib', 'bare-ws-child.ts'), process.env);
  const opened: Remote[] = [];
  try {
    const family = await service.family();
    const list = await service.rest(family, 'POST', '/api/lists', { name: 'Propagation' });
    const { url: pouchUrl } = await pouchServer.call<{ url: string }>('start');
    const remoteUrl = `${pouchUrl}/items`;
    await pouchServer.call('seed', { name: 'items', n: 0, doc: {} });
    const { url: bareUrl } = await bare.call<{ url: string }>('start');
    // The floor's item: a real one, as the service's pull answers it (every field, `_deleted`).
    const made = await service.rest<{ id: string }>(family, 'POST', `/api/lists/${list.id}/items`, {
      name: 'Template',
    });
    const page = await service.rest<{ documents: Doc<'items'>[]; checkpoint: { version: number } }>(
      family,
      'GET',
      pullUrl('items', null, 1000),
    );
    const template = page.documents.find((d) => d.id === made.id)!;
    let floorVersion = page.checkpoint.version;

    const sdkDevice = async (receiver: boolean) => {
      const r = await workerRemote('sdk-device', sdkFile, null);
      opened.push(r);
      await r.call('open', { baseUrl: service.url, session: family.session, receiver });
      return r;
    };
    const pouchDevice = async (receiver: boolean) => {
      const r = await workerRemote('pouch-device', pouchFile, null);
      opened.push(r);
      await r.call('open', { remoteUrl, receiver });
      return r;
    };
    const floorDevice = async () => {
      const r = await workerRemote('rxdb-floor-device', floorFile, null);
      opened.push(r);
      await r.call('open', { url: bareUrl });
      return r;
    };
    /** The floor's "write": one frame, encoded here, that the bare server sends to every device. */
    const broadcast = async (name: string) => {
      const at = new Date().toISOString();
      const doc = { ...template, id: globalThis.crypto.randomUUID(), name, createdAt: at, updatedAt: at };
      const text = JSON.stringify({ documents: [doc], checkpoint: checkpointAtVersion(++floorVersion) });
      const t0 = now();
      await bare.call('broadcastText', { text });
      return { id: doc.id, t0 };
    };
    const writers: Record<'sdk' | 'pouchdb', Remote> = {
      sdk: await sdkDevice(false),
      pouchdb: await pouchDevice(false),
    };
    const itemFields = { quantity: 2, isApproximate: false, quantityNote: null, checked: false, sectionId: null };

    const results: Array<{
      n: number;
      system: System;
      p50: number[];
      p99: number[];
      frameP50: number[];
      receipts: number;
      missing: number;
    }> = [];
    let patchedFrames = 0;
    for (const n of SIZES) {
      const t = Date.now();
      const sdkReceivers = await startMany(n, () => sdkDevice(true));
      const pouchReceivers = await startMany(n, () => pouchDevice(true));
      const floorReceivers = await startMany(n, () => floorDevice());
      console.error(`${n} receiving devices of each kind ready in ${((Date.now() - t) / 1000).toFixed(1)} s`);
      const sdkArrivals = new Arrivals();
      sdkArrivals.listen(sdkReceivers);
      const pouchArrivals = new Arrivals();
      pouchArrivals.listen(pouchReceivers);
      const floorArrivals = new Arrivals();
      floorArrivals.listen(floorReceivers);

      const per: Record<
        System,
        { p50: number[]; p99: number[]; frameP50: number[]; receipts: number; missing: number }
      > = {
        patches: { p50: [], p99: [], frameP50: [], receipts: 0, missing: 0 },
        pulls: { p50: [], p99: [], frameP50: [], receipts: 0, missing: 0 },
        pouchdb: { p50: [], p99: [], frameP50: [], receipts: 0, missing: 0 },
        floor: { p50: [], p99: [], frameP50: [], receipts: 0, missing: 0 },
      };
      let k = 0;
      const writeOnce = async (system: System) => {
        const arrivals = system === 'pouchdb' ? pouchArrivals : system === 'floor' ? floorArrivals : sdkArrivals;
        const name = `Item ${++k}`;
        const { id, t0 } =
          system === 'floor'
            ? await broadcast(name)
            : await writers[system === 'pouchdb' ? 'pouchdb' : 'sdk'].call<{ id: string; t0: number }>('write', {
                listId: list.id,
                name,
                doc: itemFields,
              });
        const got = await arrivals.wait(id, t0, n);
        await sleep(20);
        return got;
      };
      for (let round = 0; round < ROUNDS; round++) {
        for (const system of SYSTEMS) {
          if (system === 'patches' || system === 'pulls')
            await Promise.all(sdkReceivers.map((r) => r.call('mode', { stripDocs: system === 'pulls' })));
          if (round === 0) for (let i = 0; i < WARMUP; i++) await writeOnce(system);
          const lat: number[] = [];
          const frames: number[] = [];
          for (let i = 0; i < WRITES; i++) {
            const got = await writeOnce(system);
            lat.push(...got.latencies);
            frames.push(...got.frames);
            per[system].missing += got.missing;
          }
          if (frames.length) per[system].frameP50.push(quantile(ascending(frames), 0.5));
          const s = ascending(lat);
          per[system].p50.push(quantile(s, 0.5));
          per[system].p99.push(quantile(s, 0.99));
          per[system].receipts += s.length;
        }
      }
      const stats = await Promise.all(sdkReceivers.map((r) => r.call<{ patched: number }>('stats')));
      patchedFrames += stats.reduce((a, s) => a + s.patched, 0);
      for (const system of SYSTEMS) results.push({ n, system, ...per[system] });
      await Promise.all(
        [...sdkReceivers, ...pouchReceivers, ...floorReceivers].map((r) =>
          r
            .call('close')
            .catch(() => undefined)
            .then(() => r.close()),
        ),
      );
    }

    const rows: string[] = [];
    for (const n of SIZES) {
      const pouch = results.find((r) => r.n === n && r.system === 'pouchdb')!;
      for (const system of SYSTEMS) {
        const r = results.find((x) => x.n === n && x.system === system)!;
        const vs = system === 'pouchdb' ? '1' : `${fmtSpread(ratioSpread(pouch.p99, r.p99), 1)}×`;
        rows.push(
          `| ${n} | ${LABEL[system]} | ${r.receipts.toLocaleString('en-US')}${r.missing ? ` (${r.missing} missing)` : ''} | ${fmtSpread(spread(r.frameP50), 1)} | ${fmtSpread(spread(r.p50), 1)} | ${fmtSpread(spread(r.p99), 1)} | ${vs} |`,
        );
      }
    }
    // The floor against issue 12's goal at the largest size measured.
    const top = Math.max(...SIZES);
    const floorTop = results.find((r) => r.n === top && r.system === 'floor')!;
    const pouchTop = results.find((r) => r.n === top && r.system === 'pouchdb')!;
    const floorRatio = ratioSpread(pouchTop.p99, floorTop.p99);
    const verdict =
      top !== 100
        ? '.'
        : floorRatio.median >= 20
          ? ': the floor leaves room for the goal.'
          : ": below it in this run's median, so on this machine no device that takes live docs through RxDB's replication set up as the SDK's would reach it, whatever its server and its own code do.";
    const md = [
      `Measured ${today()}${SMOKE ? ' (smoke run)' : ''}: ${backendName()}, ${machine()}; ${ROUNDS} rounds of ${WRITES} writes per system and size (after ${WARMUP} warm-up writes), rounds interleaved.`,
      patchedFrames === 0
        ? '\n**No `Changed` frame carried `docs` in this run: the server sent no live patches, so both SDK rows pull.**'
        : `\n${patchedFrames.toLocaleString('en-US')} \`Changed\` frames with \`docs\` reached the receiving SDK devices.`,
      '',
      '| receiving devices | system | receipts | `Changed` frame p50 ms | in the database p50 ms | p99 ms | PouchDB p99 / this p99 |',
      '|---:|---|---:|---:|---:|---:|---:|',
      ...rows,
      '',
      `The RxDB floor's clock starts when the bench asks the bare server to send its frame: it leaves out the writer's local write, its push, the commit and any validation, so its p99 is a lower bound of the p99 of any system whose devices take live docs through RxDB's replication, on this machine. Its "frame" column is when the bare frame reached the device.`,
      '',
      `**Floor against the goal**: at ${top} receiving device${top === 1 ? '' : 's'}, PouchDB p99 / RxDB floor p99 = ${fmtSpread(floorRatio, 1)}× (issue 12's goal for the SDK: ≥ 20× at 100 devices)${verdict}`,
    ].join('\n');
    writeResult(`live-propagation.${backend()}`, md, { sizes: SIZES, results, patchedFrames });
  } finally {
    await Promise.all(opened.map((r) => r.close().catch(() => undefined)));
    await pouchServer.call('close').catch(() => undefined);
    await pouchServer.close();
    await bare.call('close').catch(() => undefined);
    await bare.close();
    await service.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
