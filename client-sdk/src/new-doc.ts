/**
 * `newDoc(collection, fields)`: a complete document for a local insert. RxDB stores every
 * field of the contract's schemas (nullable ones as null), so the caller names what matters
 * (`{ listId, name }`) and the rest gets its empty value: a fresh UUID for `id`, null for
 * nullable fields, false for flags, 0 for `position`, `[]` for `unitCategoryFlags`,
 * `kind: 'family'` for catalog rows, now for timestamps (the server stamps its own).
 */
import { newId } from './ids.js';
import { rxSchemas, type CollectionName, type DocData, type JsonSchemaProperty } from './protocol/index.js';

export function newDoc<C extends CollectionName>(collection: C, fields: Partial<DocData<C>>): DocData<C> {
  const schema = rxSchemas[collection];
  const now = new Date().toISOString();
  const given = fields as Record<string, unknown>;
  const doc: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(schema.properties) as [string, JsonSchemaProperty][]) {
    if (given[key] !== undefined) {
      doc[key] = given[key];
      continue;
    }
    const types = Array.isArray(prop.type) ? prop.type : [prop.type];
    if (key === 'id') doc[key] = newId();
    else if (key === 'createdAt' || key === 'updatedAt') doc[key] = now;
    else if (key === 'kind') doc[key] = 'family';
    else if (types.includes('null')) doc[key] = null;
    else if (types.includes('boolean')) doc[key] = false;
    else if (types.includes('array')) doc[key] = [];
    else if (key === 'position') doc[key] = 0;
    else throw new TypeError(`newDoc(${collection}): ${key} is required`);
  }
  return doc as DocData<C>;
}
