// Two server instances sharing the database and Redis: a change made through instance one
// reaches a socket connected to instance two (and the other way round), exactly once, and never
// a socket of another family.
//
// Instance one is the suite's shared app (this process). Instance two is, on PostgreSQL, a
// separate OS process (`node --import tsx server/main.ts` with PORT=0, its URL read from its
// "listening" log line): its own database pool, Redis connections, HTTP server and sockets.
// On the embedded database (PGlite in memory cannot be opened by two processes) instance two is
// a second startServer in this process sharing the database handle, still with its own Redis
// connections, bus, HTTP server and sockets.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import { request, startTestApp, testApp } from '../../helpers/app.js';
import { testEnv, usingPostgres } from '../../helpers/env.js';
import { makeFamily, makeMember } from '../../helpers/factories.js';
import type { RunningServer } from '../../../server/server.js';
import { TestSocket, sleep } from './client.js';
import { itemDoc, listDoc, pull, push } from '../sync/helpers.js';
import { checkpointAtVersion } from '@family-shopping/client/protocol';

interface Instance {
  url: string;
  /** Stops the instance as a process manager would (SIGTERM) or an operator would (SIGINT). */
  stop(signal?: 'SIGTERM' | 'SIGINT'): Promise<void>;
}

async function spawnInstance(): Promise<Instance> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: { ...testEnv({ LOG_LEVEL: 'info' }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`instance two did not start: ${stderr}`)), 30_000);
    void exited.then((code) => reject(new Error(`instance two exited with ${code}: ${stderr}`)));
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { url?: string };
        if (entry.url) {
          clearTimeout(timer);
          resolve(entry.url);
        }
      } catch {
        // not a log line
      }
    });
  });
  return {
    url,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      await exited;
    },
  };
}

async function inProcessInstance(shared: RunningServer): Promise<Instance> {
  const app = await startTestApp({ db: shared.deps.db });
  // As server/main.ts does on these signals.
  return { url: app.url, stop: (signal = 'SIGTERM') => app.close({ restart: signal === 'SIGTERM' }) };
}

describe('realtime: across server instances (Redis)', function () {
  this.timeout(60_000);
  let one: RunningServer;
  let two: Instance | undefined;
  const sockets: TestSocket[] = [];

  before(async function () {
    // Needs Redis: without REDIS_URL (the in-process leg) each instance has its own in-process
    // bus, so events cannot cross instances by design. CI's second leg sets REDIS_URL.
    if (!process.env.REDIS_URL) this.skip();
    one = await testApp();
    two = usingPostgres ? await spawnInstance() : await inProcessInstance(one);
  });
  after(async () => {
    for (const s of sockets.splice(0)) s.close();
    await two?.stop();
  });

  it('a change through instance one reaches a socket on instance two, and back, exactly once', async () => {
    const family = await makeFamily(one);
    const member = await makeMember(one, family);
    const stranger = await makeFamily(one);
    const onTwo = await TestSocket.connect({ url: two!.url }, member.token);
    const strangerOnTwo = await TestSocket.connect({ url: two!.url }, stranger.admin.token);
    const onOne = await TestSocket.connect(one, family.admin.token);
    sockets.push(onTwo, strangerOnTwo, onOne);

    // Instance one writes; the socket on instance two hears it.
    const created = await request(one, 'POST', '/api/lists', { token: family.admin.token, body: { name: 'Via one' } });
    expect(created.status).to.equal(201);
    const listId = created.body.id as string;
    expect((await onTwo.next((f) => f.type === 'ListCreated')).list.id).to.equal(listId);
    await onTwo.next((f) => f.type === 'Changed');

    // Joined on instance two (its own database connection checks the list), items added on one.
    expect(await onTwo.join(listId, 'j')).to.include({ type: 'JoinedList' });
    const item = await request(one, 'POST', `/api/lists/${listId}/items`, {
      token: family.admin.token,
      body: { name: 'Bread' },
    });
    expect(item.status).to.equal(201);
    expect(await onTwo.next((f) => f.type === 'ItemAdded')).to.deep.equal({
      type: 'ItemAdded',
      listId,
      item: item.body,
    });

    // And back: instance two writes, the socket on instance one hears it.
    const back = await request({ url: two!.url }, 'POST', '/api/lists', {
      token: member.token,
      body: { name: 'Via two' },
    });
    expect(back.status).to.equal(201);
    expect((await onOne.next((f) => f.type === 'ListCreated' && f.list.id === back.body.id)).list.name).to.equal(
      'Via two',
    );

    // Exactly once on each side (the publisher skips its own echo), nothing for the stranger.
    await onTwo.next((f) => f.type === 'ListCreated' && f.list.id === back.body.id);
    // Barriers: one more write through each instance. Redis keeps each publisher's order, so
    // once both sockets hold both barriers, a late duplicate of an earlier event would be there.
    const barriers = [
      (await request(one, 'POST', '/api/lists', { token: family.admin.token, body: { name: 'Barrier one' } })).body
        .id as string,
      (await request({ url: two!.url }, 'POST', '/api/lists', { token: member.token, body: { name: 'Barrier two' } }))
        .body.id as string,
    ];
    const holdsBarriers = (s: TestSocket) =>
      barriers.every((id) => s.ofType('ListCreated').some((f) => f.list.id === id));
    for (let i = 0; i < 400 && !(holdsBarriers(onOne) && holdsBarriers(onTwo)); i++) await sleep(25);
    await strangerOnTwo.sync();
    for (const s of [onOne, onTwo]) {
      expect(holdsBarriers(s), 'both barriers arrived').to.equal(true);
      const created = s.ofType('ListCreated').map((f) => f.list.id as string);
      expect(created.filter((id) => !barriers.includes(id))).to.deep.equal([listId, back.body.id]);
      expect(created.length, JSON.stringify(created)).to.equal(4);
      const versions = s.ofType('Changed').map((f) => f.version);
      expect(new Set(versions).size, JSON.stringify(versions)).to.equal(versions.length);
    }
    expect(strangerOnTwo.frames.map((f) => f.type)).to.deep.equal(['Authenticated', 'Error']);
  });

  it('a live patch crosses instances: Changed on instance two carries the docs a pull from previous returns', async () => {
    const family = await makeFamily(one);
    const onTwo = await TestSocket.connect({ url: two!.url }, family.admin.token);
    sockets.push(onTwo);
    const list = listDoc();
    expect((await push(one, family.admin.token, 'lists', [{ newDocumentState: list }])).status).to.equal(200);
    await onTwo.next((f) => f.type === 'Changed');
    // 100 items of long names: the largest patch that fits (about 60 KiB through Redis).
    const rows = (n: number, name: string) =>
      Array.from({ length: n }, () => ({ newDocumentState: itemDoc(list.id, { name }) }));
    expect((await push(one, family.admin.token, 'items', rows(100, 'y'.repeat(160)))).body.rejected).to.deep.equal([]);
    const patched = await onTwo.next((f) => f.type === 'Changed');
    expect(Buffer.byteLength(JSON.stringify(patched))).to.be.within(56 * 1024, 64 * 1024);
    const pulled = await pull(
      { url: two!.url },
      family.admin.token,
      'items',
      checkpointAtVersion(patched.previous),
      1000,
    );
    expect(patched.docs.items).to.deep.equal(pulled.body);
    expect(patched.docs.items.documents).to.have.length(100);
    // Over the bound: the nudge alone, still with its previous.
    expect((await push(one, family.admin.token, 'items', rows(101, 'z'))).body.rejected).to.deep.equal([]);
    expect(await onTwo.next((f) => f.type === 'Changed')).to.deep.equal({
      type: 'Changed',
      version: patched.version + 1,
      previous: patched.version,
      collections: ['items'],
    });
  });

  it('removing a member through instance one closes their socket on instance two with 4403', async () => {
    const family = await makeFamily(one);
    const member = await makeMember(one, family);
    const onTwo = await TestSocket.connect({ url: two!.url }, member.token);
    sockets.push(onTwo);
    const res = await request(one, 'DELETE', `/api/family/members/${member.userId}`, { token: family.admin.token });
    expect(res.status).to.equal(204);
    expect((await onTwo.closed).code).to.equal(4403);
  });

  it('stopping an instance closes its sockets so clients reconnect elsewhere: SIGTERM with 1012, SIGINT with 1001', async () => {
    const family = await makeFamily(one);
    const onTwo = await TestSocket.connect({ url: two!.url }, family.admin.token);
    sockets.push(onTwo);
    await two!.stop('SIGTERM');
    two = undefined;
    expect((await onTwo.closed).code).to.equal(1012);

    // The client reconnects to the instance still running and hears the next change.
    const again = await TestSocket.connect(one, family.admin.token);
    sockets.push(again);
    const created = await request(one, 'POST', '/api/lists', {
      token: family.admin.token,
      body: { name: 'After restart' },
    });
    expect((await again.next((f) => f.type === 'ListCreated')).list.id).to.equal(created.body.id);

    const three = usingPostgres ? await spawnInstance() : await inProcessInstance(one);
    try {
      const onThree = await TestSocket.connect({ url: three.url }, family.admin.token);
      sockets.push(onThree);
      await three.stop('SIGINT');
      expect((await onThree.closed).code).to.equal(1001);
    } finally {
      await three.stop();
    }
  });
});
