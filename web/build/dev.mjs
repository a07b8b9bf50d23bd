// `npm run dev`: the API server (port 3000) and Vite's dev server (port 5173, the API and its
// WebSocket proxied to the server, see vite.config.ts), stopped together.
import { spawn } from 'node:child_process';

const children = [
  spawn('npm', ['start'], {
    stdio: 'inherit',
    env: { APP_BASE_URL: 'http://localhost:5173', ...process.env, PORT: process.env.PORT ?? '3000' },
  }),
  spawn('npm', ['run', 'dev', '-w', '@family-shopping/web', '--', '--host', process.env.DEV_HOST ?? 'localhost'], {
    stdio: 'inherit',
    env: { API_URL: `http://127.0.0.1:${process.env.PORT ?? '3000'}`, ...process.env },
  }),
];
const stop = (code = 0) => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGINT');
  process.exitCode = code;
};
for (const c of children) c.on('exit', (code) => stop(code ?? 0));
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
