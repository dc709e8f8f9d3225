// The text of the brand's public files (the icon's SVG, the web app manifest)
// and the .ico container, computed from lib/brand/index.ts. `npm run brand` writes
// them; tests/unit/brand-assets.test.ts checks that public/ still matches.
import type { Brand } from "../lib/brand";

type IconShape = {
  /** "rounded": a tile with rounded corners on transparency (favicons, "any" icons). "square": full bleed (iOS rounds it itself; maskable icons are cut by the OS). */
  tile: "rounded" | "square";
  /** Scale of the mark on the tile; maskable icons keep it inside the central safe circle. */
  markScale?: number;
};

/** The mark: a viewfinder's four corners around a play button, on a tile of the brand colour. */
export function iconSvg(brand: Brand, { tile, markScale = 1 }: IconShape = { tile: "rounded" }): string {
  const c = brand.colors;
  const corner = (d: string) => `<path d="${d}"/>`;
  const mark = [
    `<g transform="translate(256 256) scale(${markScale}) translate(-256 -256)">`,
    `<g fill="none" stroke="${c.onBrand}" stroke-width="36" stroke-linecap="round" stroke-linejoin="round">`,
    corner("M120 196V120H196"),
    corner("M316 120H392V196"),
    corner("M392 316V392H316"),
    corner("M196 392H120V316"),
    `</g>`,
    `<path d="M214 182 346 256 214 330Z" fill="${c.onBrand}" stroke="${c.onBrand}" stroke-width="24" stroke-linejoin="round"/>`,
    `</g>`,
  ].join("");
  const rx = tile === "rounded" ? 112 : 0;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512" width="512" height="512">`,
    `<rect width="512" height="512" rx="${rx}" fill="${c.brand[600]}"/>`,
    mark,
    `</svg>`,
    "",
  ].join("\n");
}

/** The web app manifest (https://www.w3.org/TR/appmanifest/), as JSON text. */
export function webManifest(brand: Brand): string {
  const { assets, colors } = brand;
  const manifest = {
    name: brand.name,
    short_name: brand.shortName,
    description: brand.description,
    start_url: "/",
    scope: "/",
    display: "standalone",
    background_color: colors.pageLight,
    theme_color: colors.pageLight,
    icons: [
      { src: assets.icon192, sizes: "192x192", type: "image/png", purpose: "any" },
      { src: assets.icon512, sizes: "512x512", type: "image/png", purpose: "any" },
      { src: assets.iconMaskable, sizes: "512x512", type: "image/png", purpose: "maskable" },
      { src: assets.iconSvg, sizes: "any", type: "image/svg+xml", purpose: "any" },
    ],
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** An .ico holding PNG images (every browser and Windows since Vista read these). */
export function icoFromPngs(images: { size: number; png: Buffer }[]): Buffer {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(images.length, 4);
  let offset = 6 + 16 * images.length;
  const entries = images.map(({ size, png }) => {
    const entry = Buffer.alloc(16);
    entry.writeUInt8(size >= 256 ? 0 : size, 0); // width (0 means 256)
    entry.writeUInt8(size >= 256 ? 0 : size, 1); // height
    entry.writeUInt8(0, 2); // palette size
    entry.writeUInt8(0, 3); // reserved
    entry.writeUInt16LE(1, 4); // colour planes
    entry.writeUInt16LE(32, 6); // bits per pixel
    entry.writeUInt32LE(png.length, 8);
    entry.writeUInt32LE(offset, 12);
    offset += png.length;
    return entry;
  });
  return Buffer.concat([header, ...entries, ...images.map((image) => image.png)]);
}

/** Width and height from a PNG's header, or null if it is not a PNG. */
export function pngSize(file: Buffer): { width: number; height: number } | null {
  const signature = "89504e470d0a1a0a";
  if (file.length < 24 || file.subarray(0, 8).toString("hex") !== signature) return null;
  return { width: file.readUInt32BE(16), height: file.readUInt32BE(20) };
}
