// `npm run admin -- COMMAND`: the operator's commands against the configured database. They run
// in the service itself when it holds the embedded database (through the control socket,
// server/ops/control.ts), otherwise in the CLI's own process (server/ops/admin-cli.ts).
import type { Deps } from '../context.js';
import { Email, FamilyName, findUserByEmail, membershipOf, issueResetToken } from '../auth/public.js';
import { resetLink } from '../mail/public.js';
import { createFamilyRow, changeRole } from '../family/public.js';
import { listFamilies, listUsers } from './queries.js';

/** How long a reset link printed by `reset-link` works (an emailed one: 15 minutes). The operator
 *  hands it over by hand, which takes longer than opening an email. */
export const ADMIN_RESET_TTL_MS = 24 * 60 * 60_000;

export const ADMIN_USAGE = `Usage: npm run admin -- COMMAND

Commands:
  users                 list the users: email, name, family, role, created
  families              list the families: name, members, created
  create-family NAME    create a family and print its invite code
  reset-link EMAIL      print a single-use password-reset link (valid 24 hours)
  make-admin EMAIL      make the user an admin of their family

Runs against the configured database (DATABASE_URL, or the embedded one in DATA_DIR).`;

export interface AdminResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface AdminContext {
  deps: Deps;
  /** Where the app is opened (APP_BASE_URL, or the service's own address). */
  baseUrl: string;
}

const ok = (stdout: string): AdminResult => ({ code: 0, stdout: `${stdout}\n`, stderr: '' });
const failed = (message: string): AdminResult => ({ code: 1, stdout: '', stderr: `${message}\n` });
const usage = (message: string): AdminResult => ({ code: 2, stdout: '', stderr: `${message}\n\n${ADMIN_USAGE}\n` });

const when = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** Columns padded to their widest cell. */
export function table(head: string[], body: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), ...body.map(line)].join('\n');
}

interface Command {
  args: string[];
  run: (ctx: AdminContext, args: string[]) => Promise<AdminResult>;
}

/** A command without arguments that prints rows as a table (`empty` when there are none). */
function listing<R>(
  read: (db: AdminContext['deps']['db']) => Promise<R[]>,
  empty: string,
  head: string[],
  cells: (row: R) => string[],
): Command {
  return {
    args: [],
    run: async ({ deps }) => {
      const rows = await read(deps.db);
      return ok(rows.length ? table(head, rows.map(cells)) : empty);
    },
  };
}

const COMMANDS: Record<string, Command> = {
  users: listing(listUsers, 'No users yet.', ['EMAIL', 'NAME', 'FAMILY', 'ROLE', 'CREATED'], (r) => [
    r.email,
    r.user_name,
    r.family ?? '-',
    r.role ?? '-',
    when(r.created_at),
  ]),
  families: listing(listFamilies, 'No families yet.', ['NAME', 'MEMBERS', 'CREATED'], (r) => [
    r.name,
    String(r.members),
    when(r.created_at),
  ]),
  'create-family': {
    args: ['NAME'],
    run: async ({ deps }, [raw]) => {
      const name = FamilyName.safeParse(raw);
      if (!name.success) return usage(`Invalid family name: ${name.error.issues[0]?.message ?? 'not allowed'}.`);
      const family = await deps.db.transaction((trx) => createFamilyRow(trx, { name: name.data }));
      return ok(`Created family "${family.name}". Invite code: ${family.inviteCode}`);
    },
  },
  'reset-link': {
    args: ['EMAIL'],
    run: async (ctx, [raw]) => {
      const email = Email.safeParse(raw);
      if (!email.success) return usage(`Not an email address: ${raw}`);
      const user = await findUserByEmail(ctx.deps.db, email.data);
      if (!user) return failed(`No user has the email ${email.data}.`);
      const { token, expiresAt } = await issueResetToken(ctx.deps, user.id, ADMIN_RESET_TTL_MS);
      return ok(
        `${resetLink(ctx.baseUrl, token)}\n` +
          `Single use, valid until ${when(expiresAt)}; earlier reset links of ${user.email} no longer work.`,
      );
    },
  },
  'make-admin': {
    args: ['EMAIL'],
    run: async ({ deps }, [raw]) => {
      const email = Email.safeParse(raw);
      if (!email.success) return usage(`Not an email address: ${raw}`);
      const user = await findUserByEmail(deps.db, email.data);
      if (!user) return failed(`No user has the email ${email.data}.`);
      const membership = await membershipOf(deps.db, user.id);
      if (!membership) return failed(`${user.email} belongs to no family.`);
      if (membership.role === 'admin') return ok(`${user.email} is already an admin of "${membership.family_name}".`);
      const actor = { userId: user.id, familyId: membership.family_id, role: membership.role };
      await changeRole(deps, actor, user.id, 'admin');
      return ok(`${user.email} is now an admin of "${membership.family_name}".`);
    },
  },
};

/** The answer to argv that needs no database (help, or usage with exit code 2); null: run it. */
export function checkAdminArgs(argv: string[]): AdminResult | null {
  const [name, ...args] = argv;
  if (name === undefined) return usage('No command given.');
  if (name === 'help' || name === '--help' || name === '-h') return ok(ADMIN_USAGE);
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) return usage(`Unknown command: ${name}`);
  if (args.length !== command.args.length)
    return usage(
      command.args.length ? `${name} takes one argument: ${command.args.join(' ')}.` : `${name} takes no arguments.`,
    );
  return null;
}

/** Runs one command; never throws for bad input (usage, exit code 2). */
export async function runAdmin(ctx: AdminContext, argv: string[]): Promise<AdminResult> {
  const checked = checkAdminArgs(argv);
  if (checked) return checked;
  const [name, ...args] = argv;
  return COMMANDS[name!]!.run(ctx, args);
}
