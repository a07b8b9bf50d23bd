// Languages (api-contract §12): a user's chosen language and a family's language.
//
// - `users.locale`: null until the user chooses one (the app then follows the browser).
// - `families.locale`: every family has one; existing families speak English, as they did.
//
// Stands alone: no imports of live server code (the tags below are the protocol's as of this
// migration: client-sdk/src/protocol/rules.ts LOCALES).
import type { Knex } from 'knex';

const LOCALES = ['en', 'de', 'fr', 'es', 'pt-BR'];

const TAGS_SQL = LOCALES.map((tag) => `'${tag}'`).join(', ');

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `ALTER TABLE users ADD COLUMN locale text
       CONSTRAINT users_locale_tag CHECK (locale IS NULL OR locale IN (${TAGS_SQL}))`,
  );
  await knex.raw(
    `ALTER TABLE families ADD COLUMN locale text NOT NULL DEFAULT 'en'
       CONSTRAINT families_locale_tag CHECK (locale IN (${TAGS_SQL}))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE families DROP COLUMN locale');
  await knex.raw('ALTER TABLE users DROP COLUMN locale');
}
