/**
 * RxDB's Dexie storage prints an advert for RxDB's paid plugins ("RxDB Open Core RxStorage")
 * to the console of every page, on its first write. RxDB's documented switch for it,
 * `setPremiumFlag()`, comes with the paid `rxdb-premium` package only, so the SDK drops that
 * one console message instead: every other warning passes through unchanged, and the plain
 * `console.warn` is put back once the advert has come by (RxDB prints it once per page).
 */
const ADVERT = '-------------- RxDB Open Core RxStorage';

let installed = false;

export function dropRxdbAdvert(): void {
  if (installed) return;
  installed = true;
  const original = console.warn;
  const filtered = function (this: unknown, ...args: unknown[]): void {
    if (typeof args[0] === 'string' && args[0].startsWith(ADVERT)) {
      if (console.warn === filtered) console.warn = original;
      return;
    }
    original.apply(this, args);
  };
  console.warn = filtered;
}
