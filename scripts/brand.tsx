// `npm run brand`: redraws every brand file in public/ from lib/brand/index.ts:
// icons (SVG, PNG, .ico), the web app manifest and the link-preview image.
// It renders with next/og (Satori and resvg, compiled to WebAssembly inside
// the `next` package), so it needs no ImageMagick and downloads nothing.
// The outputs are committed; the build never runs this.
import fs from "node:fs";
import path from "node:path";
import { ImageResponse } from "next/og";
import { brand } from "../lib/brand";
import { icoFromPngs, iconSvg, webManifest } from "./brand-assets";

const publicDir = path.resolve(import.meta.dirname, "..", "public");

async function png(element: React.ReactElement, width: number, height = width): Promise<Buffer> {
  return Buffer.from(await new ImageResponse(element, { width, height }).arrayBuffer());
}

function svgImage(svg: string, size: number) {
  // eslint-disable-next-line @next/next/no-img-element -- rendered by Satori, not by a browser
  return <img alt="" width={size} height={size} src={`data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`} />;
}

function write(publicPath: string, content: string | Buffer) {
  const file = path.join(publicDir, publicPath);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  console.log(`${publicPath.padEnd(30)} ${String(Buffer.byteLength(content)).padStart(7)} bytes`);
}

/** The gallery as a link preview: the mark, the name and tagline, three video tiles. */
function PreviewImage() {
  const c = brand.colors;
  const tiles = [
    { label: "Ready", badge: "#16a34a", from: c.brand[500], to: "#0ea5e9" },
    { label: "Generating", badge: c.brand[600], from: "#334155", to: "#1e293b" },
    { label: "Ready", badge: "#16a34a", from: "#f59e0b", to: c.brand[600] },
  ];
  return (
    <div
      style={{
        width: "100%",
        height: "100%",
        display: "flex",
        flexDirection: "column",
        justifyContent: "space-between",
        padding: 72,
        background: `radial-gradient(circle at 85% 0%, ${c.brand[700]} 0%, ${c.pageDark} 60%)`,
        color: "#fafafa",
      }}
    >
      <div style={{ display: "flex", alignItems: "center", gap: 36 }}>
        {svgImage(iconSvg(brand), 132)}
        <div style={{ display: "flex", flexDirection: "column", gap: 8 }}>
          <div style={{ fontSize: 92, letterSpacing: -2, lineHeight: 1 }}>{brand.name}</div>
          <div style={{ fontSize: 40, color: "#a1a1aa" }}>{brand.tagline}</div>
        </div>
      </div>
      <div style={{ display: "flex", gap: 32 }}>
        {tiles.map((tile, i) => (
          <div
            key={i}
            style={{
              width: 330,
              height: 186,
              display: "flex",
              alignItems: "flex-start",
              padding: 16,
              borderRadius: 20,
              background: `linear-gradient(135deg, ${tile.from}, ${tile.to})`,
            }}
          >
            <div style={{ display: "flex", padding: "6px 16px", borderRadius: 999, background: tile.badge, fontSize: 24 }}>{tile.label}</div>
          </div>
        ))}
      </div>
    </div>
  );
}

async function main() {
  const rounded = iconSvg(brand, { tile: "rounded" });
  const square = iconSvg(brand, { tile: "square" });
  const maskable = iconSvg(brand, { tile: "square", markScale: 0.8 });

  write(brand.assets.iconSvg, rounded);
  write(brand.assets.favicon, await favicon(rounded));
  write(brand.assets.appleTouchIcon, await png(svgImage(square, 180), 180));
  write(brand.assets.icon192, await png(svgImage(rounded, 192), 192));
  write(brand.assets.icon512, await png(svgImage(rounded, 512), 512));
  write(brand.assets.iconMaskable, await png(svgImage(maskable, 512), 512));
  write(brand.assets.manifest, webManifest(brand));
  write(brand.previewImage.url, await png(<PreviewImage />, brand.previewImage.width, brand.previewImage.height));
}

async function favicon(svg: string): Promise<Buffer> {
  const sizes = [16, 32, 48];
  return icoFromPngs(await Promise.all(sizes.map(async (size) => ({ size, png: await png(svgImage(svg, size), size) }))));
}

await main();
