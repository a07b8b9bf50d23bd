// Sessions become chains and emails can be confirmed (contract section 7).
//
// refresh_tokens.chain_id: the id of the session a refresh token belongs to, kept by every
// rotation (access tokens name it in their `sid` claim). Existing tokens each start a chain of
// their own. successor_id / successor_sealed: the token a rotation issued, the latter encrypted
// with a key derived from the rotated token itself (so a presenter of the rotated token can be
// answered the same successor during REFRESH_REUSE_GRACE; see docs/auth.md).
//
// email_confirmation_tokens: single-use links (only the SHA-256 of the token), bound to the
// address they were sent to.
//
// Stands alone: no imports of live server code.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('refresh_tokens', (t) => {
    t.uuid('chain_id').nullable();
    t.uuid('successor_id').nullable();
    t.text('successor_sealed').nullable();
  });
  await knex.raw('UPDATE refresh_tokens SET chain_id = id WHERE chain_id IS NULL');
  await knex.raw('ALTER TABLE refresh_tokens ALTER COLUMN chain_id SET NOT NULL');
  await knex.schema.alterTable('refresh_tokens', (t) => {
    t.index(['user_id', 'chain_id']);
  });

  await knex.schema.createTable('email_confirmation_tokens', (t) => {
    t.uuid('id').primary();
    t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.text('email').notNullable();
    t.text('token_hash').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true }).nullable();
    t.timestamp('invalidated_at', { useTz: true }).nullable();
    t.index(['user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('email_confirmation_tokens');
  await knex.schema.alterTable('refresh_tokens', (t) => {
    t.dropIndex(['user_id', 'chain_id']);
    t.dropColumn('successor_sealed');
    t.dropColumn('successor_id');
    t.dropColumn('chain_id');
  });
}
