// A second device for the SDK tests, in a child process of its own: RxDB's open-source build
// allows 13 open collections per process, so two nine-collection clients cannot share one.
// The parent drives it over IPC (`openDevice` in device-handle.ts): one request, one answer.
import { localDoc, recordEvents, signedInClient, type ClientOptions } from './helpers.js';
import { newDoc, type FamilyClient, type FamilyClientEvent } from '@family-shopping/client';

let client: FamilyClient | undefined;
let events: FamilyClientEvent[] = [];

type Command =
  | { cmd: 'open'; url: string; email: string; password: string; options?: ClientOptions }
  | { cmd: 'start' | 'stop' | 'sync' | 'destroy' | 'state' | 'events' }
  | { cmd: 'insert'; collection: string; fields: Record<string, unknown> }
  | { cmd: 'patch'; collection: string; id: string; patch: Record<string, unknown> }
  | { cmd: 'get'; collection: string; id: string };

async function handle(m: Command): Promise<unknown> {
  if (m.cmd === 'open') {
    client = await signedInClient({ url: m.url }, { email: m.email, password: m.password } as never, m.options);
    events = recordEvents(client);
    return client.auth.session?.user.id;
  }
  const c = client;
  if (!c) throw new Error('not open');
  const collection = (name: string) => (c.db as any)[name];
  switch (m.cmd) {
    case 'start':
      return c.start();
    case 'stop':
      return c.stop();
    case 'sync':
      return c.sync();
    case 'state':
      return c.state;
    case 'events':
      return events.map((e) => e.type);
    case 'destroy':
      client = undefined;
      return c.destroy();
    case 'insert':
      return (await collection(m.collection).insert(newDoc(m.collection as never, m.fields as never))).toJSON();
    case 'patch': {
      const doc = (await collection(m.collection).findByIds([m.id]).exec()).get(m.id);
      if (!doc) throw new Error(`no ${m.collection} ${m.id}`);
      return (await doc.incrementalPatch(m.patch)).toJSON();
    }
    case 'get':
      return (await localDoc(c, m.collection as never, m.id)) ?? null;
  }
}

process.on('message', (msg: { seq: number } & Command) => {
  handle(msg).then(
    (result) => process.send!({ seq: msg.seq, ok: true, result: result ?? null }),
    (err: Error) => process.send!({ seq: msg.seq, ok: false, error: String(err?.stack ?? err) }),
  );
});
process.on('disconnect', () => process.exit(0));
