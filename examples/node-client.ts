// Signs in with the SDK, replicates the family's data into memory and prints the lists.
//   npx tsx examples/node-client.ts http://127.0.0.1:3000 ann@example.com 'correct horse battery'
import WebSocket from 'ws';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { createFamilyClient, type WebSocketConstructor } from '@family-shopping/client';

const [baseUrl = 'http://127.0.0.1:3000', email, password] = process.argv.slice(2);
if (!email || !password) {
  console.error('usage: npx tsx examples/node-client.ts <baseUrl> <email> <password>');
  process.exit(2);
}

const client = await createFamilyClient({
  baseUrl,
  storage: getRxStorageMemory(),
  WebSocket: WebSocket as unknown as WebSocketConstructor,
});
client.on('rejected', (e) => console.warn(`server refused ${e.collection}:`, e.rows));
try {
  const session = await client.auth.login(email, password);
  console.log(`signed in as ${session.user.userName} (${session.role}) in ${session.family.name}`);
  await client.start();
  await client.awaitInSync();
  const lists = await client.db.lists.find({ selector: { archivedAt: null }, sort: [{ name: 'asc' }] }).exec();
  for (const list of lists) {
    const items = await client.db.items.find({ selector: { listId: list.id, removedAt: null } }).exec();
    console.log(`${list.name}: ${items.filter((i) => i.checked).length}/${items.length} checked`);
    for (const item of items)
      console.log(`  [${item.checked ? 'x' : ' '}] ${item.name}${item.quantity != null ? ` × ${item.quantity}` : ''}`);
  }
  if (lists.length === 0) console.log('no lists yet');
} finally {
  await client.destroy(); // memory storage: nothing to keep
}
