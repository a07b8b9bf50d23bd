// Parity of the SDK's domain layer with REST (issue 10 "Must show", contract §8): random
// sequences of domain calls made offline on a device equal, after sync (`awaitInSync()`), the
// server's REST views (`GET /api/lists`, `?archived=true`, `GET /api/lists/{id}`) deep-equal,
// server-stamped fields included; and the server accepts every change the domain layer made
// (no `rejected` event): push accepts what the domain layer accepts. (That push refuses what the
// domain layer refuses, field by field, is parity-fields.test.ts.)
import { expect } from 'chai';
import fc from 'fast-check';
import { firstValueFrom } from 'rxjs';
import { makeFamily } from '../../helpers/factories.js';
import { FamilyClientError, type FamilyClient } from '@family-shopping/client';
import { recordEvents, restAs, sdkSuite, signedInClient } from './helpers.js';

/** One domain call, its targets chosen by index among what exists when it runs. */
type Op =
  | { op: 'createList'; name: string; store: number | null }
  | { op: 'updateList'; list: number; name?: string; store?: number | null }
  | { op: 'archive' | 'unarchive' | 'deleteList'; list: number }
  | {
      op: 'addItem';
      list: number;
      name?: string;
      product: number | null;
      section: number | null;
      quantity: number | null;
      note: string | null;
    }
  | {
      op: 'updateItem';
      item: number;
      name?: string;
      quantity?: number | null;
      section?: number | null;
      product?: number | null;
      checked?: boolean;
    }
  | { op: 'toggle' | 'remove' | 'restore'; item: number }
  | { op: 'copyRecipe'; list: number };

const text = fc.oneof(
  fc.constantFrom('Milk', 'Eggs', ' Bread ', 'Äpfel', '🍎 apples', 'a'),
  fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes('\u0000')),
);
const pick = fc.nat({ max: 20 });
const quantity = fc.oneof(fc.constant(null), fc.constantFrom(1, 2.5, 0.125, 12));

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant('createList' as const), name: text, store: fc.option(pick, { nil: null }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      { op: fc.constant('updateList' as const), list: pick, name: text, store: fc.option(pick, { nil: null }) },
      { requiredKeys: ['op', 'list'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constantFrom('archive' as const, 'unarchive' as const, 'deleteList' as const),
      list: pick,
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record(
      {
        op: fc.constant('addItem' as const),
        list: pick,
        name: text,
        product: fc.option(pick, { nil: null }),
        section: fc.option(pick, { nil: null }),
        quantity,
        note: fc.option(text, { nil: null }),
      },
      { requiredKeys: ['op', 'list', 'product', 'section', 'quantity', 'note'] },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        op: fc.constant('updateItem' as const),
        item: pick,
        name: text,
        quantity,
        section: fc.option(pick, { nil: null }),
        product: fc.option(pick, { nil: null }),
        checked: fc.boolean(),
      },
      { requiredKeys: ['op', 'item'] },
    ),
  },
  {
    weight: 4,
    arbitrary: fc.record({ op: fc.constantFrom('toggle' as const, 'remove' as const, 'restore' as const), item: pick }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('copyRecipe' as const), list: pick }) },
);

interface World {
  stores: { id: string; sections: string[] }[];
  products: { id: string; kind: 'global' | 'family' }[];
  recipeId: string;
}

const at = <T>(xs: readonly T[], i: number): T | undefined => (xs.length ? xs[i % xs.length] : undefined);

async function run(c: FamilyClient, world: World, op: Op): Promise<void> {
  const lists = (await c.db.lists.find().exec()).map((d) => d.toJSON());
  const items = (await c.db.items.find().exec()).map((d) => d.toJSON());
  const list = 'list' in op ? at(lists, op.list) : undefined;
  const item = 'item' in op ? at(items, op.item) : undefined;
  const storeOf = (i: number | null | undefined) => (i == null ? null : (at(world.stores, i)?.id ?? null));
  const productRef = (i: number | null | undefined) => {
    const p = i == null ? undefined : at(world.products, i);
    if (!p) return {};
    return p.kind === 'global' ? { productId: p.id } : { familyProductId: p.id };
  };
  // A section of the list's store (when it has one), else none.
  const sectionOf = (listId: string | undefined, i: number | null | undefined) => {
    const storeId = lists.find((l) => l.id === listId)?.storeId;
    const store = world.stores.find((s) => s.id === storeId);
    return i == null || !store ? null : (at(store.sections, i) ?? null);
  };
  switch (op.op) {
    case 'createList':
      return void (await c.lists.create({ name: op.name, storeId: storeOf(op.store) }));
    case 'updateList':
      if (!list) return;
      return void (await c.lists.update(list.id, {
        ...(op.name !== undefined ? { name: op.name } : {}),
        ...(op.store !== undefined ? { storeId: storeOf(op.store) } : {}),
      }));
    case 'archive':
    case 'unarchive':
      if (!list) return;
      return void (await c.lists[op.op](list.id));
    case 'deleteList':
      if (!list) return;
      return void (await c.lists.delete(list.id));
    case 'addItem': {
      if (!list) return;
      const product = productRef(op.product);
      const byProduct = Object.keys(product).length > 0 && op.name === undefined;
      return void (await c.items.add(list.id, {
        ...(byProduct ? {} : { name: op.name ?? 'Item' }),
        ...product,
        sectionId: sectionOf(list.id, op.section),
        quantity: op.quantity,
        quantityNote: op.note,
      }));
    }
    case 'updateItem':
      if (!item) return;
      return void (await c.items.update(item.listId, item.id, {
        ...(op.name !== undefined ? { name: op.name } : {}),
        ...(op.quantity !== undefined ? { quantity: op.quantity } : {}),
        ...(op.section !== undefined ? { sectionId: sectionOf(item.listId, op.section) } : {}),
        ...(op.product !== undefined ? productRef(op.product) : {}),
        ...(op.checked !== undefined ? { checked: op.checked } : {}),
      }));
    case 'toggle':
    case 'remove':
    case 'restore':
      if (!item) return;
      return void (await c.items[op.op](item.listId, item.id));
    case 'copyRecipe':
      if (!list) return;
      return void (await c.recipes.copyToList(world.recipeId, { listId: list.id }));
  }
}

describe('e2e SDK: parity of the domain layer with REST (property)', function () {
  this.timeout(600_000);
  const sdk = sdkSuite();

  it('random offline domain calls equal the REST views after sync, server-stamped fields included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), async (ops) => {
        const family = await makeFamily(sdk.app);
        const rest = restAs(sdk.app, family.admin.token);
        const stores = [];
        for (const name of ['Corner shop', 'Market']) {
          const s = await rest('POST', '/api/stores', { name });
          stores.push({ id: s.id, sections: s.sections.map((x: any) => x.id) });
        }
        const products = [];
        for (const name of ['Apples', 'Bread', 'Cheese']) {
          const p = await rest('POST', '/api/products', { name });
          products.push({ id: p.id, kind: p.kind });
        }
        const recipe = await rest('POST', '/api/recipes', {
          name: 'Pancakes',
          ingredients: [
            { name: 'Flour', quantity: 0.5 },
            { familyProductId: products[2]!.id },
            { name: 'Milk', quantityNote: 'cold' },
          ],
        });
        const world: World = { stores, products, recipeId: recipe.id };

        const client = await signedInClient(sdk.app, family.admin);
        try {
          await client.start();
          await client.awaitInSync();
          await client.stop(); // offline from here on
          for (const op of ops) {
            try {
              await run(client, world, op);
            } catch (err) {
              // Refused calls (an item that is removed, …) write nothing; anything else is a bug.
              if (!(err instanceof FamilyClientError)) throw err;
            }
          }
          const events = recordEvents(client);
          await client.start();
          await client.awaitInSync();
          expect(
            events.filter((e) => e.type === 'rejected'),
            'the server refused a change the domain layer made',
          ).to.deep.equal([]);

          const [active, archived] = await Promise.all([
            firstValueFrom(client.lists.summaries$()),
            firstValueFrom(client.lists.summaries$({ archived: true })),
          ]);
          expect(active).to.deep.equal(await rest('GET', '/api/lists'));
          expect(archived).to.deep.equal(await rest('GET', '/api/lists?archived=true'));
          for (const l of [...active, ...archived]) {
            expect(await firstValueFrom(client.lists.detail$(l.id))).to.deep.equal(
              await rest('GET', `/api/lists/${l.id}`),
            );
          }
        } finally {
          await client.destroy();
        }
      }),
      { numRuns: Number(process.env.PARITY_RUNS ?? 8), endOnFailure: true },
    );
  });
});
