/**
 * The app's icons, drawn here and encoded as PNG at build time (no image tools, no binary
 * downloads): a rounded square in the brand colour with a white check mark. `maskable` fills
 * the whole square and keeps the mark inside the 80 % safe zone, as launchers crop it.
 */
import { crc32, deflateSync } from 'node:zlib';

export const BRAND = '#1f7a4d';

const CHECK: [number, number][] = [
  [0.3, 0.52],
  [0.44, 0.66],
  [0.71, 0.36],
];

function rgb(hex: string): [number, number, number] {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function segmentDistance(px: number, py: number, [ax, ay]: [number, number], [bx, by]: [number, number]): number {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** Coverage of (x, y) in unit coordinates: [background, mark]. */
function shapes(x: number, y: number, maskable: boolean): [boolean, boolean] {
  const r = maskable ? 0 : 0.2;
  const qx = Math.max(Math.abs(x - 0.5) - (0.5 - r), 0);
  const qy = Math.max(Math.abs(y - 0.5) - (0.5 - r), 0);
  const inBg = Math.hypot(qx, qy) <= r;
  // Maskable icons shrink the mark into the safe zone.
  const s = maskable ? 0.8 : 1;
  const mx = (x - 0.5) / s + 0.5;
  const my = (y - 0.5) / s + 0.5;
  let d = Infinity;
  for (let i = 0; i + 1 < CHECK.length; i++) d = Math.min(d, segmentDistance(mx, my, CHECK[i]!, CHECK[i + 1]!));
  return [inBg, d <= 0.055];
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([len, body, crc]);
}

export function renderIconPng(size: number, maskable = false): Buffer {
  const [br, bg, bb] = rgb(BRAND);
  const SS = 4; // 4×4 samples per pixel for smooth edges
  const raw = Buffer.alloc((size * 4 + 1) * size);
  for (let py = 0; py < size; py++) {
    const row = py * (size * 4 + 1);
    raw[row] = 0; // filter: none
    for (let px = 0; px < size; px++) {
      let bgCov = 0;
      let markCov = 0;
      for (let sy = 0; sy < SS; sy++) {
        for (let sx = 0; sx < SS; sx++) {
          const [inBg, inMark] = shapes((px + (sx + 0.5) / SS) / size, (py + (sy + 0.5) / SS) / size, maskable);
          if (inBg) {
            bgCov++;
            if (inMark) markCov++;
          }
        }
      }
      const a = bgCov / (SS * SS);
      const m = bgCov ? markCov / bgCov : 0;
      const o = row + 1 + px * 4;
      raw[o] = Math.round(br + (255 - br) * m);
      raw[o + 1] = Math.round(bg + (255 - bg) * m);
      raw[o + 2] = Math.round(bb + (255 - bb) * m);
      raw[o + 3] = Math.round(a * 255);
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The same icon as SVG (favicon). */
export function iconSvg(): string {
  const pts = CHECK.map(([x, y]) => `${x * 64},${y * 64}`).join(' ');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12.8" fill="${BRAND}"/><polyline points="${pts}" fill="none" stroke="#fff" stroke-width="7" stroke-linecap="round" stroke-linejoin="round"/></svg>`;
}

export const ICONS = [
  { file: 'icon-192.png', size: 192, maskable: false },
  { file: 'icon-512.png', size: 512, maskable: false },
  { file: 'icon-maskable-512.png', size: 512, maskable: true },
  { file: 'apple-touch-icon.png', size: 180, maskable: true },
] as const;
