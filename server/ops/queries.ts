// SQL of the operator's commands (server/ops/admin.ts): the instance as a whole, across
// families, for the person who runs it (never reachable over HTTP).
import type { Db, Trx } from '../db/knex.js';
import type { Role } from '../context.js';

type Q = Db | Trx;

export interface UserListRow {
  email: string;
  user_name: string;
  family: string | null;
  role: Role | null;
  created_at: Date;
}

export const listUsers = (q: Q) =>
  q('users as u')
    .leftJoin('family_memberships as m', 'm.user_id', 'u.id')
    .leftJoin('families as f', 'f.id', 'm.family_id')
    .orderBy([{ column: 'u.created_at' }, { column: 'u.email' }])
    .select('u.email', 'u.user_name', 'f.name as family', 'm.role', 'u.created_at') as Promise<UserListRow[]>;

export interface FamilyListRow {
  name: string;
  members: string | number;
  created_at: Date;
}

export const listFamilies = (q: Q) =>
  q('families as f')
    .leftJoin('family_memberships as m', 'm.family_id', 'f.id')
    .groupBy('f.id', 'f.name', 'f.created_at')
    .orderBy([{ column: 'f.created_at' }, { column: 'f.name' }])
    .select('f.name', 'f.created_at', q.raw('count(m.id) as members')) as Promise<FamilyListRow[]>;
