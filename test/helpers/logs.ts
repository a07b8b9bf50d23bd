// A pino logger whose JSON lines are kept in memory, so a test can read what the service logged.
import { Writable } from 'node:stream';
import { pino } from 'pino';

export interface LogLine {
  msg: string;
  level: number;
  [key: string]: unknown;
}

export function captureLogs(): { logger: pino.Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({ write: (c, _e, cb) => (lines.push(JSON.parse(String(c)) as LogLine), cb()) }),
  );
  return { logger, lines };
}
