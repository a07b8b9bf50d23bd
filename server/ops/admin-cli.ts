// `npm run admin -- COMMAND` (server/ops/admin.ts). Embedded database with the service running:
// the service runs the command (control socket); otherwise this process opens the database.
import crypto from 'node:crypto';
import readline from 'node:readline';
import type { Deps } from '../context.js';
import { systemClock } from '../context.js';
import { createLogger } from '../log.js';
import { InProcessBus } from '../events/public.js';
import { committedDocs } from '../realtime/public.js';
import { jwtKey } from '../auth/public.js';
import { ownBaseUrl } from '../mail/public.js';
import { checkAdminArgs, runAdmin, type AdminResult } from './admin.js';
import { cliSetup, runCli, withDb } from './cli.js';
import { connectControl } from './control.js';
import { appliedMigrations, migrationNames, OpsError } from './snapshot.js';

const argv = process.argv.slice(2);
const checked = checkAdminArgs(argv);
if (checked) {
  process.stdout.write(checked.stdout);
  process.stderr.write(checked.stderr);
  process.exit(checked.code);
}
const { config, target } = cliSetup();

function finish(result: AdminResult): void {
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  process.exitCode = result.code;
}

async function viaService(): Promise<AdminResult | null> {
  if (target.kind !== 'pglite' || !target.dataDir) return null;
  const socket = await connectControl(target.dataDir, { command: 'admin', args: argv });
  if (!socket) return null;
  for await (const line of readline.createInterface({ input: socket, crlfDelay: Infinity })) {
    const answer = JSON.parse(line) as Partial<AdminResult> & { error?: string };
    if (answer.error) throw new OpsError(`The running service refused the command: ${answer.error}.`);
    return { code: answer.code ?? 1, stdout: answer.stdout ?? '', stderr: answer.stderr ?? '' };
  }
  throw new OpsError('The running service closed the connection without an answer; see its log.');
}

runCli('The command', async () => {
  const answered = await viaService();
  if (answered) return finish(answered);
  const baseUrl = config.APP_BASE_URL ?? ownBaseUrl(config.HOST, config.PORT, config.TLS_CERT_FILE ? 'https' : 'http');
  const result = await withDb(target, async (db) => {
    const applied = await appliedMigrations(db);
    const known = migrationNames();
    if (applied.length === 0)
      throw new OpsError('The database has no tables yet: start the service once (or run npm run migrate).');
    if (applied.length < known.length)
      throw new OpsError(
        'The database is not migrated to this version yet: start the service once (or run npm run migrate).',
      );
    const secret = crypto.randomBytes(48).toString('base64url'); // signs nothing: no tokens are made here
    const deps: Deps = {
      config,
      db,
      bus: new InProcessBus(),
      log: createLogger('silent'),
      clock: systemClock,
      jwtSecret: secret,
      jwtKey: jwtKey(secret),
      livePatch: committedDocs,
    };
    return runAdmin({ deps, baseUrl }, argv);
  });
  finish(result);
});
