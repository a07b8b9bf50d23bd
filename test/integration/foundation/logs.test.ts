// Logs readable by a person at a terminal, JSON for everything else: `npm start` writes one JSON
// object a line when its stdout is a pipe or a file (a log collector, systemd, a container
// runtime) and pino-pretty's lines when it is a terminal. Both keep the redaction rules. The
// terminal is a real pseudo-terminal, made by util-linux `script`.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';

const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

/** Runs a command to its end; stdout and stderr together. */
function run(file: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: process.env.NODE_OPTIONS ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** What a person would read: the text without colours and carriage returns. */
const plain = (s: string) => stripVTControlCharacters(s).replace(/\r/g, '');

// Logs a secret in every place the redaction rules name one, and an error with a stack.
const PROBE = `import('./server/log.ts').then(({ createLogger }) => {
  const log = createLogger('info');
  log.info({ password: 'hunter2-top', body: { token: 'tok-secret-1' } }, 'probe line');
  log.error({ err: new Error('probe failure') }, 'probe error');
})`;

describe('logs: JSON for machines, readable lines at a terminal', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    // A data directory in use by another process (this one): server/main.ts fails at once,
    // logs it (fatal) and exits 1.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-logs-'));
    fs.writeFileSync(path.join(dir, 'pglite.lock'), `${process.pid}\n`);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const mainEnv = () => ({ DATABASE_URL: '', DATA_DIR: dir, PORT: '0', NODE_ENV: 'test' });

  it('`npm start` with stdout on a pipe writes one JSON object a line', async () => {
    const { code, out } = await run(process.execPath, ['--import', 'tsx', 'server/main.ts'], mainEnv());
    expect(code).to.equal(1);
    const lines = out.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).to.be.at.least(1);
    const records = lines.map((l) => JSON.parse(l) as { level: number; msg: string; err?: Record<string, string> });
    const fatal = records.find((r) => r.msg === 'failed to start');
    expect(fatal?.level).to.equal(60);
    expect(fatal?.err?.message).to.match(/in use by process \d+/);
    expect(out).to.not.match(/\n\s+at /); // no stack
  });

  it('the logger on a pipe: JSON, secrets redacted, no stack', async () => {
    const { code, out } = await run(process.execPath, ['--import', 'tsx', '-e', PROBE], {});
    expect(code).to.equal(0);
    const [line, error] = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(line).to.include({ msg: 'probe line', password: '[redacted]' });
    expect(line.body).to.deep.equal({ token: '[redacted]' });
    expect(error.err).to.deep.equal({ name: 'Error', message: 'probe failure' });
  });

  describe('at a terminal', () => {
    before(function () {
      if (!hasScript) this.skip(); // `script` (util-linux) makes the pseudo-terminal
    });
    const inTerminal = (command: string, env: Record<string, string>) =>
      run('script', ['-qec', command, '/dev/null'], env);

    it('the logger writes readable lines, secrets still redacted, no stack', async () => {
      const { code, out } = await inTerminal(`${process.execPath} --import tsx -e "${PROBE.replace(/"/g, '\\"')}"`, {});
      expect(code).to.equal(0);
      const text = plain(out);
      expect(text).to.match(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: probe line$/m);
      expect(text).to.match(/^\[\d\d:\d\d:\d\d\.\d{3}\] ERROR: probe error$/m);
      expect(text).to.include('"[redacted]"').and.include('probe failure');
      expect(text).to.not.include('hunter2-top').and.not.include('tok-secret-1');
      expect(text).to.not.match(/\n\s+at /);
      for (const l of text.split('\n').filter((x) => x.trim())) expect(() => JSON.parse(l), l).to.throw();
    });

    it('`npm start` writes readable lines', async () => {
      const { code, out } = await inTerminal(`${process.execPath} --import tsx server/main.ts`, mainEnv());
      expect(code).to.equal(1);
      expect(plain(out)).to.match(/^\[\d\d:\d\d:\d\d\.\d{3}\] FATAL: failed to start$/m);
    });
  });
});
