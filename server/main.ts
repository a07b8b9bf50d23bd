// `npm start`
import { ConfigError, loadConfig } from './config.js';
import { createLogger, errorFields } from './log.js';
import { startServer } from './server.js';

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}

const log = createLogger(config.LOG_LEVEL);
const starting = startServer({ logger: log });

// The signal handlers are in place before the service can announce its URL: a process manager
// (or a test) that signals right after reading that line must get a graceful stop, never the
// default action of a signal without handler. A signal during startup stops once started.
let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  const timer = setTimeout(() => process.exit(1), 15_000);
  timer.unref();
  const running = await starting.catch(() => null);
  // SIGTERM is what process managers and orchestrators send to stop an instance for a deploy,
  // restart or reschedule: the service carries on, so live sockets get 1012 (service restart).
  // SIGINT is an operator stopping it by hand: 1001 (going away). Clients reconnect on both.
  await running?.close({ restart: signal === 'SIGTERM' });
  process.exit(0);
};
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));

try {
  const running = await starting;
  if (!stopping) log.info({ url: running.url }, `Family Shopping listening on ${running.url}`);
} catch (err) {
  // A configuration found wrong while starting (e.g. TLS files: server/tls.ts) reads as one above.
  if (err instanceof ConfigError) console.error(err.message);
  else log.fatal({ err: errorFields(err) }, 'failed to start');
  process.exit(1);
}
