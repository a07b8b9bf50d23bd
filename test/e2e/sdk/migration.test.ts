// The SDK's local database migrates from the previous version (issue 22, api-contract §10):
// sections and products are RxDB local schema version 1 (with `category`) since replication
// schema 2. A database written by the previous SDK version (the old RxDB schemas of those two
// collections, kept in test/fixtures/sdk/rx-schemas-v0.json, with RxDB replication state under
// the SDK's replication identifiers and local changes not pushed yet) is opened by the current
// SDK on a persistent storage (RxDB's Dexie storage over fake-indexeddb): the docs are migrated
// (`category: null`), the changes that were waiting reach the server after `start()`, and
// nothing is pulled again from scratch (every pull starts from the checkpoint the old version
// stored, and only what changed since comes).
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { addRxPlugin, createRxDatabase, type RxCollection } from 'rxdb';
import { RxDBLocalDocumentsPlugin } from 'rxdb/plugins/local-documents';
import { replicateRxCollection } from 'rxdb/plugins/replication';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { firstValueFrom } from 'rxjs';
import WebSocket from 'ws';
import { COLLECTIONS, newDoc, type WebSocketConstructor } from '@family-shopping/client';
import { SCHEMA_VERSION, pullUrl, rxSchemas, type CollectionName } from '@family-shopping/client/protocol';
import { sha256Hex } from '../../../client-sdk/src/hash.js';
import { dropRxdbAdvert } from '../../../client-sdk/src/rxdb-notice.js';
import { makeFamily } from '../../helpers/factories.js';
import { fetchAs, loginSession, newClient, restAs, sdkSuite } from './helpers.js';

const V0 = JSON.parse(readFileSync(new URL('../../fixtures/sdk/rx-schemas-v0.json', import.meta.url), 'utf8')) as {
  sections: object;
  products: object;
};
/** The collections whose shape changed, and what the previous version's server answered of them. */
const CHANGED = ['sections', 'products'] as const;

const storage = () => getRxStorageDexie({ indexedDB, IDBKeyRange });

/**
 * What the previous SDK version left in a database: its nine collections (sections and products
 * with the old schemas), RxDB's replication state of a completed sync under the SDK's replication
 * identifiers (checkpoints, assumed server states; the old server's docs had no `category`), the
 * owner record, then local writes made while stopped (not pushed).
 */
async function writeOldDatabase(
  name: string,
  app: { url: string },
  token: string,
  owner: { familyId: string; userId: string; baseUrl: string },
  localWrites: (db: any) => Promise<void>,
): Promise<Record<CollectionName, number>> {
  addRxPlugin(RxDBLocalDocumentsPlugin);
  dropRxdbAdvert();
  const db = await createRxDatabase<any>({
    name,
    storage: storage(),
    multiInstance: false,
    localDocuments: true,
    hashFunction: sha256Hex,
  });
  const pulled = {} as Record<CollectionName, number>;
  try {
    await db.addCollections(
      Object.fromEntries(
        COLLECTIONS.map((c) => [
          c,
          { schema: (CHANGED as readonly string[]).includes(c) ? V0[c as 'sections'] : rxSchemas[c] },
        ]),
      ),
    );
    const fetch = fetchAs();
    for (const c of COLLECTIONS) {
      pulled[c] = 0;
      const state = replicateRxCollection<any, any>({
        collection: db[c] as RxCollection<any>,
        replicationIdentifier: `family-shopping/${owner.familyId}/${c}`,
        live: false,
        waitForLeadership: false,
        autoStart: true,
        pull: {
          batchSize: 1000,
          handler: async (checkpoint, batchSize) => {
            const res = await fetch(`${app.url}${pullUrl(c, checkpoint ?? null, batchSize, SCHEMA_VERSION)}`, {
              headers: { authorization: `Bearer ${token}` },
            });
            if (res.status !== 200) throw new Error(`pull ${c}: ${res.status} ${await res.text()}`);
            const body = (await res.json()) as { documents: any[]; checkpoint: unknown };
            pulled[c] += body.documents.length;
            const documents = (CHANGED as readonly string[]).includes(c)
              ? body.documents.map(({ category, ...doc }) => (void category, doc))
              : body.documents;
            return { documents, checkpoint: body.checkpoint ?? checkpoint };
          },
        },
        push: {
          handler: async () => {
            throw new Error('the old database had nothing to push during its sync');
          },
        },
      });
      await state.awaitInitialReplication();
      await state.cancel();
    }
    await db.upsertLocal('family-shopping-owner', owner);
    await localWrites(db);
  } finally {
    await db.close();
  }
  return pulled;
}

describe('e2e SDK: local database of the previous version', function () {
  this.timeout(120_000);
  const sdk = sdkSuite();

  it('migrates sections and products, pushes the waiting changes and pulls from the old checkpoints', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    const store = await rest('POST', '/api/stores', { name: 'Corner shop' });
    const produce = store.sections[0];
    const added = await rest('POST', `/api/stores/${store.id}/sections`, { name: 'Garden' });
    const list = await rest('POST', '/api/lists', { name: 'Weekly', storeId: store.id });
    const cheese = await rest('POST', '/api/products', { name: 'Hard cheese' });
    // A catalog a full re-sync would pull again.
    for (let i = 0; i < 20; i++) await rest('POST', '/api/products', { name: `Staple ${i}` });
    const name = `sdk-migration-${family.familyId.slice(0, 8)}`;
    const owner = { familyId: family.familyId, userId: family.admin.userId, baseUrl: sdk.app.url };

    // The previous version: synced, then offline writes to a section, a new family product and an item.
    const newProduct = { id: '' };
    const newItem = { id: '' };
    const before = await writeOldDatabase(name, sdk.app, family.admin.token, owner, async (db) => {
      const section = await db.sections.findOne(produce.id).exec();
      expect(section.toJSON()).to.not.have.property('category');
      await section.incrementalPatch({ name: 'Fruit & veg', updatedAt: new Date().toISOString() });
      const { category, ...product } = newDoc('products', { name: 'Oat drink' });
      void category;
      newProduct.id = product.id;
      await db.products.insert(product);
      newItem.id = (await db.items.insert(newDoc('items', { listId: list.id, name: 'Candles' }))).id;
    });
    expect(before.products, 'the old version pulled the catalog').to.be.at.least(21);
    expect(before.sections).to.equal(store.sections.length + 1);

    // Meanwhile on the server: a section gets a category (a versioned write, as the server's backfill).
    await rest('PATCH', `/api/stores/${store.id}/sections/${added.id}`, { category: 'produce' });

    const pulls: { collection: string; checkpoint: boolean; documents: number }[] = [];
    const pushed: string[] = [];
    const counting = fetchAs();
    const client = sdk.track(
      await newClient(sdk.app, {
        storage: storage(),
        databaseName: name,
        tabs: false,
        session: await loginSession(sdk.app, family.admin),
        WebSocket: WebSocket as unknown as WebSocketConstructor,
        fetch: async (input, init) => {
          const push = /\/api\/sync\/(\w+)\/push\?/.exec(String(input));
          if (push) {
            const rows = JSON.parse(String(init?.body)) as { newDocumentState: { id: string } }[];
            for (const r of rows) pushed.push(`${push[1]}:${r.newDocumentState.id}`);
          }
          const res = await counting(input, init);
          const m = /\/api\/sync\/(\w+)\/pull\?(.*)$/.exec(String(input));
          if (m && res.status === 200) {
            const body = (await res.clone().json()) as { documents: unknown[] };
            pulls.push({
              collection: m[1]!,
              checkpoint: m[2]!.includes('checkpoint='),
              documents: body.documents.length,
            });
          }
          return res;
        },
      }),
    );
    // Migrated before anything is sent: every section and product has `category` (null).
    const sections = (await client.db.sections.find().exec()).map((d) => d.toJSON());
    expect(sections).to.have.length(store.sections.length + 1);
    for (const s of sections) expect(s.category, s.name).to.equal(null);
    expect(sections.find((s) => s.id === produce.id)?.name).to.equal('Fruit & veg');
    const products = (await client.db.products.find().exec()).map((d) => d.toJSON());
    expect(products).to.have.length(before.products + 1);
    for (const p of products) expect(p.category, p.name).to.equal(null);

    await client.start();
    await client.awaitInSync();
    expect(await firstValueFrom(client.pending$)).to.equal(0);

    // The waiting changes, and only they, were pushed, and reached the server.
    expect([...new Set(pushed)].sort()).to.deep.equal(
      [`items:${newItem.id}`, `products:${newProduct.id}`, `sections:${produce.id}`].sort(),
    );
    const detail = await rest('GET', `/api/stores/${store.id}`);
    const renamed = detail.sections.find((s: any) => s.id === produce.id);
    expect(renamed.name).to.equal('Fruit & veg');
    // The migrated null was no change of the device's: the server's category stays.
    expect(renamed.category).to.equal(produce.category);
    expect((await rest('GET', '/api/products?q=Oat%20drink')).map((p: any) => p.id)).to.deep.equal([newProduct.id]);
    const items = (await rest('GET', `/api/lists/${list.id}`)).groups.flatMap((s: any) => s.items);
    expect(items.map((i: any) => i.id)).to.include(newItem.id);

    // No full re-sync: every pull started from the stored checkpoint of a collection that had
    // one, and brought only what changed since.
    for (const c of COLLECTIONS) {
      if (before[c] === 0) continue;
      const mine = pulls.filter((p) => p.collection === c);
      expect(
        mine.every((p) => p.checkpoint),
        `${c}: pulls from its checkpoint`,
      ).to.equal(true);
    }
    const pulledProducts = pulls.filter((p) => p.collection === 'products').reduce((n, p) => n + p.documents, 0);
    expect(pulledProducts, 'products pulled again').to.be.at.most(2);
    // What changed on the server since came with those pulls (the backfill's versioned writes do alike).
    const garden = (await client.db.sections.findOne(added.id).exec())!.toJSON();
    expect(garden.category).to.equal('produce');
    const cheeseDoc = (await client.db.products.findOne(cheese.id).exec())!.toJSON();
    expect(cheeseDoc.name).to.equal('Hard cheese');
    const local = (await client.db.sections.findOne(produce.id).exec())!.toJSON();
    expect(local.category).to.equal(renamed.category);
  });
});
