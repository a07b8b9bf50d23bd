// Real Chromium for browser tests: Debian's `chromium` (installed by .ci/run with apt, never
// downloaded), driven by playwright-core. Pages are served from the app's own origin
// (127.0.0.1 is a secure context, so IndexedDB, service workers and crypto.subtle work).
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The flags every headless Chromium of the tests and benchmarks runs with. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

function installedChromium(): void {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`no Chromium at ${CHROMIUM_PATH}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  }
}

/** Launches headless Chromium (with `extraArgs` after the usual ones); fails with a clear
 * message when it is not installed. */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  installedChromium();
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/** Headless Chromium with a profile of its own in `userDataDir` (its storage on disk, as a
 * user's browser keeps it; `browser.newContext()` keeps an off-the-record context's in memory). */
export async function launchPersistentContext(
  userDataDir: string,
  options: Parameters<typeof chromium.launchPersistentContext>[1] = {},
): Promise<BrowserContext> {
  installedChromium();
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    ...options,
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
  });
}

/** A phone-sized context (360×640, touch), the app's smallest supported screen. */
export function phoneContext(
  browser: Browser,
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<BrowserContext> {
  return browser.newContext({
    viewport: { width: 360, height: 640 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    ...options,
  });
}
