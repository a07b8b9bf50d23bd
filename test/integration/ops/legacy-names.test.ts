// Names stored before the name rule of api-contract §13 (migrations/20261128100001_clean_legacy_names):
// a record whose stored name the rule refuses cannot be edited from a device (the push checks
// the whole doc, its base included), until the migration cleans the name under a new version of
// the family, which every device then pulls. On PGlite, and on PostgreSQL when DATABASE_URL is set.
import { expect } from 'chai';
import { testApp, request } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import { updateVersioned } from '../../helpers/versioned.js';
import { familyVersion, itemDoc, listDoc, pullAll, push, storeDoc, type AnyDoc } from '../sync/helpers.js';
import { cleanedName, up as cleanLegacyNames } from '../../../migrations/20261128100001_clean_legacy_names.js';

type App = Awaited<ReturnType<typeof testApp>>;

describe('names stored before the name rule (upgrade)', () => {
  let app: App;
  before(async () => {
    app = await testApp();
  });

  it('cleans a name as the rule would take it', () => {
    expect(cleanedName('Milk')).to.equal(null);
    expect(cleanedName('Crème fraîche')).to.equal(null);
    expect(cleanedName('עגבניות\u200F')).to.equal(null); // a right-to-left mark stays allowed
    expect(cleanedName('Week\u202Eend')).to.equal('Weekend');
    expect(cleanedName(' Bread\u0007 ')).to.equal('Bread');
    expect(cleanedName('\u200B')).to.equal('?');
    expect(cleanedName('\uFDD0\r\n')).to.equal('?');
  });

  it('cleans refused names under a new family version, so devices pull them and can edit again', async () => {
    const family = await makeFamily(app);
    const t = family.admin.token;
    const other = await makeFamily(app);
    const list = listDoc({ name: 'Weekly' });
    const item = itemDoc(list.id, { name: 'Eggs' });
    const corner = storeDoc({ name: 'Corner' });
    const corner2 = storeDoc({ name: 'Corner shop' });
    const foreign = storeDoc({ name: 'Theirs' });
    expect((await push(app, t, 'lists', [{ newDocumentState: list }])).body.rejected).to.deep.equal([]);
    expect((await push(app, t, 'items', [{ newDocumentState: item }])).body.rejected).to.deep.equal([]);
    expect(
      (await push(app, t, 'stores', [{ newDocumentState: corner }, { newDocumentState: corner2 }])).body.rejected,
    ).to.deep.equal([]);
    expect((await push(app, other.admin.token, 'stores', [{ newDocumentState: foreign }])).body.rejected).to.deep.equal(
      [],
    );

    // What an earlier server stored (no rule then), written as every write is: versioned.
    await updateVersioned(app, family.familyId, 'shopping_list_items', { id: item.id }, { name: '\u200B' });
    await updateVersioned(app, family.familyId, 'shopping_lists', { id: list.id }, { name: 'Week\u202Eend' });
    await updateVersioned(app, family.familyId, 'stores', { id: corner2.id }, { name: 'Corner\u0007' });
    await updateVersioned(app, other.familyId, 'stores', { id: foreign.id }, { name: 'Corner\u0007' });

    const before = await pullAll(app, t, 'items', null, 1000);
    const base = before.docs.get(item.id)!;
    expect(base.name).to.equal('\u200B');
    // Before the cleaning: any edit of the item is refused, its stored name included.
    const refused = await push(app, t, 'items', [
      { assumedMasterState: base, newDocumentState: { ...base, checked: true } },
    ]);
    expect(refused.body.rejected.map((r) => r.code)).to.deep.equal(['validation_failed']);

    const versionBefore = await familyVersion(app, family.familyId);
    await app.deps.db.transaction((trx) => cleanLegacyNames(trx));
    expect(await familyVersion(app, family.familyId)).to.equal(versionBefore + 1);

    // Devices pull the cleaned rows from where they were.
    const items = await pullAll(app, t, 'items', before.checkpoint, 1000);
    expect(items.docs.get(item.id)).to.include({ name: '?' });
    const lists = await pullAll(app, t, 'lists', null, 1000);
    expect(lists.docs.get(list.id)).to.include({ name: 'Weekend' });
    // Store names stay unique in the family: the cleaned one that equals a live name is numbered;
    // another family's equal name is its own.
    const stores = await request(app, 'GET', '/api/stores', { token: t });
    expect((stores.body as Array<{ name: string }>).map((s) => s.name).sort()).to.deep.equal(['Corner', 'Corner 2']);
    const theirs = await request(app, 'GET', '/api/stores', { token: other.admin.token });
    expect((theirs.body as Array<{ name: string }>).map((s) => s.name)).to.deep.equal(['Corner']);

    // The item can be edited from a device again.
    const cleaned = items.docs.get(item.id) as AnyDoc;
    const edit = await push(app, t, 'items', [
      { assumedMasterState: cleaned, newDocumentState: { ...cleaned, checked: true } },
    ]);
    expect(edit.body).to.deep.equal({ conflicts: [], rejected: [] });
    const detail = await request(app, 'GET', `/api/lists/${list.id}`, { token: t });
    expect(detail.body.name).to.equal('Weekend');
    expect(detail.body.groups[0].items[0]).to.include({ id: item.id, name: '?', checked: true });

    // Run again: nothing left to clean, no version taken.
    const settled = await familyVersion(app, family.familyId);
    await app.deps.db.transaction((trx) => cleanLegacyNames(trx));
    expect(await familyVersion(app, family.familyId)).to.equal(settled);
  });
});
