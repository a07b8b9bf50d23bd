import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UNIT_CODES, unitId } from '../../../migrations/20261123000001_seed_reference_units.js';
import { stableId } from '../../../server/db/ids.js';
import { loadUnits } from '../../../seeds/load.js';

const MIGRATIONS = join(import.meta.dirname, '../../../migrations');

describe('migrations stand alone', () => {
  it('import nothing but node built-ins and knex', () => {
    for (const file of readdirSync(MIGRATIONS).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(join(MIGRATIONS, file), 'utf8');
      for (const m of text.matchAll(/^import\s[^;]*?from\s+'([^']+)'/gm)) {
        expect(m[1], `${file} imports ${m[1]}`).to.match(/^(node:|knex$)/);
      }
    }
  });

  it('seed the same units, with the same ids, as the startup job', () => {
    const seeded = loadUnits().map((u) => u.code);
    expect(UNIT_CODES).to.deep.equal(seeded.slice(0, UNIT_CODES.length));
    for (const code of UNIT_CODES) expect(unitId(code)).to.equal(stableId('unit', code));
  });
});
