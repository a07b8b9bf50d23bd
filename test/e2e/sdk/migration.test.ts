// The SDK's local database migrates from the previous versions. Sections and products are RxDB
// local schema version 1 (with `category`) since replication schema 2 (issue 22, api-contract
// §10); products are version 2 (with `englishName`) since replication schema 3 (issue 24, §12).
// A database written by a previous SDK version (the old RxDB schemas, kept in
// test/fixtures/sdk/rx-schemas-v0.json and rx-schemas-v1.json, with RxDB replication state under
// the SDK's replication identifiers and local changes not pushed yet) is opened by the current
// SDK on a persistent storage (RxDB's Dexie storage over fake-indexeddb): the docs are migrated
// (`category: null`, `englishName: null`), the changes that were waiting reach the server after
// `start()`, and nothing is pulled again from scratch (every pull starts from the checkpoint the
// old version stored, and only what changed since comes), but for the global products, which
// come again once with their English names (the old checkpoint was issued at schema 2).
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { addRxPlugin, createRxDatabase, type RxCollection } from 'rxdb';
import { RxDBLocalDocumentsPlugin } from 'rxdb/plugins/local-documents';
import { RxDBMigrationSchemaPlugin } from 'rxdb/plugins/migration-schema';
import { replicateRxCollection } from 'rxdb/plugins/replication';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { firstValueFrom } from 'rxjs';
import WebSocket from 'ws';
import { COLLECTIONS, newDoc, type FamilyClient, type WebSocketConstructor } from '@family-shopping/client';
import { MIN_SCHEMA_VERSION, pullUrl, rxSchemas, type CollectionName } from '@family-shopping/client/protocol';
import { catalogWrite } from '../../../server/db/family-write.js';
import { newId } from '../../../server/db/ids.js';
import { MIGRATIONS } from '../../../client-sdk/src/database.js';
import { sha256Hex } from '../../../client-sdk/src/hash.js';
import { dropRxdbAdvert } from '../../../client-sdk/src/rxdb-notice.js';
import { makeFamily, type TestUser } from '../../helpers/factories.js';
import type { RunningServer } from '../../../server/server.js';
import { fetchAs, loginSession, newClient, restAs, sdkSuite } from './helpers.js';

const fixture = (file: string) =>
  JSON.parse(readFileSync(new URL(`../../fixtures/sdk/${file}`, import.meta.url), 'utf8')) as Record<string, object>;
/** RxDB schemas of the SDK before replication schema 2 (sections and products without
 *  `category`), and before schema 3 (products without `englishName`). */
const V0 = fixture('rx-schemas-v0.json');
const V1 = fixture('rx-schemas-v1.json');

/** An earlier SDK: its RxDB schemas where they differ from the current ones, and the doc fields
 *  its server did not send yet (removed from what the pulls at schema 2 answer). */
interface OldVersion {
  schemas: Partial<Record<CollectionName, object>>;
  unknown: Partial<Record<CollectionName, readonly string[]>>;
}
const BEFORE_CATEGORIES: OldVersion = {
  schemas: { sections: V0.sections!, products: V0.products! },
  unknown: { sections: ['category'], products: ['category'] },
};
const BEFORE_ENGLISH_NAMES: OldVersion = { schemas: { products: V1.products! }, unknown: {} };

const storage = () => getRxStorageDexie({ indexedDB, IDBKeyRange });

/**
 * What an earlier SDK version left in a database: its nine collections (with its schemas), RxDB's
 * replication state of a completed sync under the SDK's replication identifiers (checkpoints,
 * assumed server states, pulled at the oldest schema the server serves, without the fields the
 * old version did not know), the owner record, then local writes made while stopped (not pushed).
 */
async function writeOldDatabase(
  name: string,
  app: { url: string },
  token: string,
  owner: { familyId: string; userId: string; baseUrl: string },
  old: OldVersion,
  localWrites: (db: any) => Promise<void>,
): Promise<Record<CollectionName, number>> {
  addRxPlugin(RxDBLocalDocumentsPlugin);
  addRxPlugin(RxDBMigrationSchemaPlugin);
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
        COLLECTIONS.map((c) => {
          const schema = (old.schemas[c] ?? rxSchemas[c]) as { version: number };
          // The strategies that version had: those up to its schema's version.
          const strategies = Object.entries(MIGRATIONS[c] ?? {}).filter(([v]) => Number(v) <= schema.version);
          return [c, { schema, migrationStrategies: Object.fromEntries(strategies) }];
        }),
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
            const res = await fetch(`${app.url}${pullUrl(c, checkpoint ?? null, batchSize, MIN_SCHEMA_VERSION)}`, {
              headers: { authorization: `Bearer ${token}` },
            });
            if (res.status !== 200) throw new Error(`pull ${c}: ${res.status} ${await res.text()}`);
            const body = (await res.json()) as { documents: any[]; checkpoint: unknown };
            pulled[c] += body.documents.length;
            const unknown = old.unknown[c] ?? [];
            const documents = body.documents.map((doc) =>
              Object.fromEntries(Object.entries(doc as object).filter(([k]) => !unknown.includes(k))),
            );
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

/** The current SDK on the database `name`, not started, counting its pulls and pushed rows. */
async function openCurrent(sdk: ReturnType<typeof sdkSuite>, name: string, user: TestUser) {
  const pulls: { collection: string; checkpoint: boolean; documents: number }[] = [];
  const pushed: string[] = [];
  const counting = fetchAs();
  const client = sdk.track(
    await newClient(sdk.app, {
      storage: storage(),
      databaseName: name,
      tabs: false,
      session: await loginSession(sdk.app, user),
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
  return { client, pulls, pushed };
}

/** A global product of the test's own (the global catalog every family shares), with a German
 *  name. */
async function addGlobalProduct(app: RunningServer, english: string, german: string): Promise<string> {
  const id = newId();
  await catalogWrite(app.deps, async (trx, version) => {
    await trx('products').insert({ id, key: `t-${id}`, name: english, catalog_version: version });
    await trx('product_names').insert({ product_id: id, locale: 'de', name: german });
  });
  return id;
}

const localDocOf = async (client: FamilyClient, id: string) => (await client.db.products.findOne(id).exec())!.toJSON();

const globalProductCount = async (app: RunningServer) =>
  Number(((await app.deps.db('products').count({ n: '*' }).first()) as { n: string | number }).n);

/** Every local product doc equals the server's, `englishName` included (a global product's
 *  English name, null for the family's). */
async function expectEnglishNames(client: FamilyClient, rest: ReturnType<typeof restAs>): Promise<void> {
  const server = new Map(
    ((await rest('GET', '/api/products?limit=200')) as Array<{ id: string; englishName: string | null }>).map((p) => [
      p.id,
      p.englishName,
    ]),
  );
  const local = (await client.db.products.find().exec()).map((d) => d.toJSON());
  expect(local.length).to.equal(server.size);
  for (const p of local) expect(p.englishName, p.name).to.equal(server.get(p.id));
  expect(local.some((p) => p.kind === 'global' && p.englishName !== null)).to.equal(true);
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
    await addGlobalProduct(
      sdk.app,
      `Cheddar ${family.familyId.slice(0, 6)}`,
      `Cheddarkäse ${family.familyId.slice(0, 6)}`,
    );
    // A catalog a full re-sync would pull again.
    for (let i = 0; i < 20; i++) await rest('POST', '/api/products', { name: `Staple ${i}` });
    const name = `sdk-migration-${family.familyId.slice(0, 8)}`;
    const owner = { familyId: family.familyId, userId: family.admin.userId, baseUrl: sdk.app.url };

    // The previous version: synced, then offline writes to a section, a new family product and an item.
    const newProduct = { id: '' };
    const newItem = { id: '' };
    const before = await writeOldDatabase(name, sdk.app, family.admin.token, owner, BEFORE_CATEGORIES, async (db) => {
      const section = await db.sections.findOne(produce.id).exec();
      expect(section.toJSON()).to.not.have.property('category');
      await section.incrementalPatch({ name: 'Fruit & veg', updatedAt: new Date().toISOString() });
      const { category, englishName, ...product } = newDoc('products', { name: 'Oat drink' });
      void category;
      void englishName;
      newProduct.id = product.id;
      await db.products.insert(product);
      newItem.id = (await db.items.insert(newDoc('items', { listId: list.id, name: 'Candles' }))).id;
    });
    expect(before.products, 'the old version pulled the catalog').to.be.at.least(21);
    expect(before.sections).to.equal(store.sections.length + 1);

    // Meanwhile on the server: a section gets a category (a versioned write, as the server's backfill).
    await rest('PATCH', `/api/stores/${store.id}/sections/${added.id}`, { category: 'produce' });

    const { client, pulls, pushed } = await openCurrent(sdk, name, family.admin);
    // Migrated before anything is sent: every section and product has `category` (null).
    const sections = (await client.db.sections.find().exec()).map((d) => d.toJSON());
    expect(sections).to.have.length(store.sections.length + 1);
    for (const s of sections) expect(s.category, s.name).to.equal(null);
    expect(sections.find((s) => s.id === produce.id)?.name).to.equal('Fruit & veg');
    const products = (await client.db.products.find().exec()).map((d) => d.toJSON());
    expect(products).to.have.length(before.products + 1);
    for (const p of products) expect([p.category, p.englishName], p.name).to.deep.equal([null, null]);

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
    // Of the products, the global ones come again (with their English names), the family's not.
    const globals = await globalProductCount(sdk.app);
    const pulledProducts = pulls.filter((p) => p.collection === 'products').reduce((n, p) => n + p.documents, 0);
    expect(pulledProducts, 'products pulled again').to.be.at.most(globals + 2);
    await expectEnglishNames(client, rest);
    // What changed on the server since came with those pulls (the backfill's versioned writes do alike).
    const garden = (await client.db.sections.findOne(added.id).exec())!.toJSON();
    expect(garden.category).to.equal('produce');
    const cheeseDoc = (await client.db.products.findOne(cheese.id).exec())!.toJSON();
    expect(cheeseDoc.name).to.equal('Hard cheese');
    const local = (await client.db.sections.findOne(produce.id).exec())!.toJSON();
    expect(local.category).to.equal(renamed.category);
  });

  it('from before English names: products migrate, the waiting changes land, the global products come again with them', async () => {
    const family = await makeFamily(sdk.app);
    const rest = restAs(sdk.app, family.admin.token);
    await rest('PATCH', '/api/family', { locale: 'de' });
    const tag = family.familyId.slice(0, 6);
    const oat = await addGlobalProduct(sdk.app, `Oat milk ${tag}`, `Hafermilch ${tag}`);
    const rye = await addGlobalProduct(sdk.app, `Rye bread ${tag}`, `Roggenbrot ${tag}`);
    const own = await rest('POST', '/api/products', { name: `Dinkeldrink ${tag}` });
    for (let i = 0; i < 20; i++) await rest('POST', '/api/products', { name: `Vorrat ${i}` });
    const name = `sdk-migration-v2-${family.familyId.slice(0, 8)}`;
    const owner = { familyId: family.familyId, userId: family.admin.userId, baseUrl: sdk.app.url };

    // The SDK of replication schema 2: synced, then offline: a family product renamed, a global
    // product's category changed (its override), a new family product.
    const added = { id: '' };
    const before = await writeOldDatabase(
      name,
      sdk.app,
      family.admin.token,
      owner,
      BEFORE_ENGLISH_NAMES,
      async (db) => {
        const mine = await db.products.findOne(own.id).exec();
        expect(mine.toJSON()).to.not.have.property('englishName');
        await mine.incrementalPatch({ name: `Dinkelmilch ${tag}`, updatedAt: new Date().toISOString() });
        const bread = await db.products.findOne(rye).exec();
        expect(bread.toJSON()).to.include({ name: `Roggenbrot ${tag}` });
        await bread.incrementalPatch({ category: 'bakery', updatedAt: new Date().toISOString() });
        const { englishName, ...product } = newDoc('products', { name: `Haferflocken ${tag}` });
        void englishName;
        added.id = product.id;
        await db.products.insert(product);
      },
    );
    expect(before.products).to.be.at.least(23);

    const { client, pulls, pushed } = await openCurrent(sdk, name, family.admin);
    // Migrated before anything is sent: `englishName` null everywhere, the waiting changes kept.
    const migrated = (await client.db.products.find().exec()).map((d) => d.toJSON());
    expect(migrated).to.have.length(before.products + 1);
    for (const p of migrated) expect(p.englishName, p.name).to.equal(null);
    expect(migrated.find((p) => p.id === own.id)?.name).to.equal(`Dinkelmilch ${tag}`);

    await client.start();
    await client.awaitInSync();
    expect(await firstValueFrom(client.pending$)).to.equal(0);
    expect([...new Set(pushed)].sort()).to.deep.equal(
      [`products:${own.id}`, `products:${rye}`, `products:${added.id}`].sort(),
    );
    const server = new Map(((await rest('GET', '/api/products?limit=200')) as any[]).map((p) => [p.id, p]));
    expect(server.get(own.id)).to.include({ name: `Dinkelmilch ${tag}`, englishName: null });
    expect(server.get(rye)).to.include({
      name: `Roggenbrot ${tag}`,
      englishName: `Rye bread ${tag}`,
      category: 'bakery',
    });
    expect(server.get(added.id)).to.include({ name: `Haferflocken ${tag}`, englishName: null });

    // Every pull started from the stored checkpoint; of the products, the global ones came again
    // (the family's did not: at most the three pushed ones, with the server's stamps).
    for (const c of COLLECTIONS) {
      if (before[c] === 0) continue;
      expect(
        pulls.filter((p) => p.collection === c).every((p) => p.checkpoint),
        `${c}: pulls from its checkpoint`,
      ).to.equal(true);
    }
    const pulledProducts = pulls.filter((p) => p.collection === 'products').reduce((n, p) => n + p.documents, 0);
    expect(pulledProducts).to.be.within(1, (await globalProductCount(sdk.app)) + 3);
    await expectEnglishNames(client, rest);
    expect((await localDocOf(client, oat)).englishName).to.equal(`Oat milk ${tag}`);

    // Offline, the migrated device finds the staple by its English name, as REST does.
    const found = await firstValueFrom(client.products.search$(`oat milk ${tag}`));
    expect(found.map((p) => p.name)).to.deep.equal([`Hafermilch ${tag}`]);
    expect(
      (await rest('GET', `/api/products?q=${encodeURIComponent(`oat milk ${tag}`)}`)).map((p: any) => p.id),
    ).to.deep.equal(found.map((p) => p.id));
  });
});
