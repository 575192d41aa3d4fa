/**
 * Draws the app icon at every size the installers use, from the shapes of
 * resources/icons/icon.png (measured on its 512 px grid): a rounded square with a vertical
 * teal-to-blue gradient, a white arch on a base, and three translucent panels under the arch.
 * Drawing rather than resizing keeps the 1024 px icon sharp and the 16 px one balanced.
 *
 *   npx tsx scripts/make-icons.ts
 *
 * Writes resources/icons/png/<n>x<n>.png (16-1024, the Linux icon set and the macOS source),
 * resources/icons/icon.ico (16-256, for Windows) and the macOS menu-bar template
 * (resources/icons/trayTemplate.png, 16 px, and @2x, 32 px: black and alpha only). The output is committed; run this again
 * only when the design changes.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";

export const PNG_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024] as const;
export const ICO_SIZES = [16, 24, 32, 48, 64, 128, 256] as const;
export const TEMPLATE_FILES = [
  ["trayTemplate.png", 16],
  ["trayTemplate@2x.png", 32],
] as const;

type Rgba = [number, number, number, number];

const TOP: Rgba = [13, 146, 137, 255];
const BOTTOM: Rgba = [23, 110, 165, 255];
const WHITE: Rgba = [255, 255, 255, 255];
/** The panels are white at this opacity in the original, drawn over nothing (see-through). */
const PANEL: Rgba = [255, 255, 255, 150];
const CLEAR: Rgba = [0, 0, 0, 0];

// The design, in the original's 512 px units (pixel edges).
const BOX = { min: 21, max: 492, radius: 92 };
const ARCH = { cx: 256.5, cy: 246, outer: 153.5, inner: 92.5, bottom: 400 };
const PANELS: Array<[number, number]> = [
  [164, 195],
  [226, 256],
  [287, 318],
];
const BASE = { x0: 72, x1: 441, y0: 400, y1: 431 };

function inRoundedBox(x: number, y: number): boolean {
  const { min, max, radius } = BOX;
  if (x < min || x >= max || y < min || y >= max) return false;
  const cx = Math.min(Math.max(x, min + radius), max - radius);
  const cy = Math.min(Math.max(y, min + radius), max - radius);
  return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2;
}

/** Inside the arch's outline of half-width `r`: a half disc on top of a rectangle. */
function inArchShape(x: number, y: number, r: number): boolean {
  if (y >= ARCH.bottom) return false;
  if (y >= ARCH.cy) return Math.abs(x - ARCH.cx) <= r;
  return (x - ARCH.cx) ** 2 + (y - ARCH.cy) ** 2 <= r ** 2;
}

/** The colour at a point of the 512 grid. */
export function paint(x: number, y: number): Rgba {
  if (!inRoundedBox(x, y)) return CLEAR;
  const inBase = x >= BASE.x0 && x < BASE.x1 && y >= BASE.y0 && y < BASE.y1;
  const inHole = inArchShape(x, y, ARCH.inner);
  if (inBase || (inArchShape(x, y, ARCH.outer) && !inHole)) return WHITE;
  if (inHole && y >= ARCH.cy && PANELS.some(([a, b]) => x >= a && x < b)) return PANEL;
  const t = (y - BOX.min) / (BOX.max - 1 - BOX.min);
  return [0, 1, 2].map((i) => Math.round(TOP[i] + (BOTTOM[i] - TOP[i]) * t)).concat(255) as Rgba;
}

/**
 * The macOS menu-bar icon: the arch, its base and the panels alone, in black with alpha (a
 * template image: macOS tints it for light and dark menu bars), framed tighter than the app
 * icon so the glyph fills the bar's height.
 */
const TEMPLATE_VIEW = { x0: 56, y0: 62, size: 400 };
const BLACK: Rgba = [0, 0, 0, 255];
const BLACK_PANEL: Rgba = [0, 0, 0, 150];

export function paintTemplate(x: number, y: number): Rgba {
  const c = paint(x, y);
  if (c === WHITE) return BLACK;
  if (c === PANEL) return BLACK_PANEL;
  return CLEAR;
}

/** RGBA pixels of the icon at `size` px, each the average of a grid of samples. */
export function render(
  size: number,
  painter: (x: number, y: number) => Rgba = paint,
  view = { x0: 0, y0: 0, size: 512 },
): Buffer {
  const grid = size <= 64 ? 8 : 4;
  const scale = view.size / size;
  const out = Buffer.alloc(size * size * 4);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < grid; sy++) {
        for (let sx = 0; sx < grid; sx++) {
          const c = painter(
            view.x0 + (px + (sx + 0.5) / grid) * scale,
            view.y0 + (py + (sy + 0.5) / grid) * scale,
          );
          // Averaged premultiplied, so transparent samples add no colour.
          r += c[0] * c[3];
          g += c[1] * c[3];
          b += c[2] * c[3];
          a += c[3];
        }
      }
      const i = (py * size + px) * 4;
      if (a > 0) {
        out[i] = Math.round(r / a);
        out[i + 1] = Math.round(g / a);
        out[i + 2] = Math.round(b / a);
      }
      out[i + 3] = Math.round(a / (grid * grid));
    }
  }
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A PNG file of RGBA pixels (8 bits per channel, no filtering). */
export function encodePng(size: number, rgba: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++)
    rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A 32-bit DIB as ICO files hold it: bottom-up BGRA, then an all-clear AND mask. */
function dib(size: number, rgba: Buffer): Buffer {
  const header = Buffer.alloc(40);
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(size, 4);
  header.writeInt32LE(size * 2, 8);
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(32, 14);
  const pixels = Buffer.alloc(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const from = (y * size + x) * 4;
      const to = ((size - 1 - y) * size + x) * 4;
      pixels.set([rgba[from + 2], rgba[from + 1], rgba[from], rgba[from + 3]], to);
    }
  }
  const mask = Buffer.alloc(Math.ceil(size / 32) * 4 * size);
  return Buffer.concat([header, pixels, mask]);
}

/**
 * An ICO file: classic bitmaps below 256 px (what every Windows tool reads), PNG at 256 px
 * (the form Windows expects for that size).
 */
export function encodeIco(images: Array<{ size: number; rgba: Buffer }>): Buffer {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(images.length, 4);
  const bodies = images.map(({ size, rgba }) =>
    size >= 256 ? encodePng(size, rgba) : dib(size, rgba),
  );
  let offset = 6 + 16 * images.length;
  const entries = images.map(({ size }, i) => {
    const e = Buffer.alloc(16);
    e.writeUInt8(size >= 256 ? 0 : size, 0);
    e.writeUInt8(size >= 256 ? 0 : size, 1);
    e.writeUInt16LE(1, 4);
    e.writeUInt16LE(32, 6);
    e.writeUInt32LE(bodies[i].length, 8);
    e.writeUInt32LE(offset, 12);
    offset += bodies[i].length;
    return e;
  });
  return Buffer.concat([header, ...entries, ...bodies]);
}

function main(): void {
  const dir = join("resources", "icons");
  mkdirSync(join(dir, "png"), { recursive: true });
  const rendered = new Map<number, Buffer>();
  for (const size of PNG_SIZES) {
    const rgba = render(size);
    rendered.set(size, rgba);
    writeFileSync(join(dir, "png", `${size}x${size}.png`), encodePng(size, rgba));
  }
  const ico = ICO_SIZES.map((size) => ({ size, rgba: rendered.get(size) ?? render(size) }));
  writeFileSync(join(dir, "icon.ico"), encodeIco(ico));
  // Menu-bar icons are 16 points high; the @2x file is for Retina screens.
  for (const [name, size] of TEMPLATE_FILES)
    writeFileSync(join(dir, name), encodePng(size, render(size, paintTemplate, TEMPLATE_VIEW)));
  console.log(`wrote ${PNG_SIZES.length} PNG sizes, icon.ico and the tray templates to ${dir}`);
}

if (process.argv[1]?.endsWith("make-icons.ts")) main();
