// public/ is drawn from lib/brand/index.ts by `npm run brand`: these fail when one
// was edited without the other, or when a file is not what its name promises.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { brand } from "@/lib/brand";
import { truncateTitle } from "@/lib/brand/page-metadata";
import { config as proxyConfig } from "@/proxy";
import { iconSvg, pngSize, webManifest } from "@/scripts/brand-assets";

const publicFile = (url: string) => fs.readFileSync(path.join("public", url));

describe("public/ matches lib/brand/index.ts", () => {
  test("the manifest and the SVG icon are what `npm run brand` writes from it", () => {
    expect(publicFile(brand.assets.manifest).toString()).toBe(webManifest(brand));
    expect(publicFile(brand.assets.iconSvg).toString()).toBe(iconSvg(brand));
  });

  test("the manifest names the product and lists served icons of its colours", () => {
    const manifest = JSON.parse(publicFile(brand.assets.manifest).toString());
    expect(manifest).toMatchObject({ name: brand.name, short_name: brand.shortName, theme_color: brand.colors.pageLight, start_url: "/" });
    expect(manifest.short_name.length).toBeLessThanOrEqual(12);
    for (const icon of manifest.icons) expect(fs.existsSync(path.join("public", icon.src)), icon.src).toBe(true);
    expect(manifest.icons.map((icon: { purpose: string }) => icon.purpose)).toContain("maskable");
  });

  test.each([
    [brand.assets.appleTouchIcon, 180, 180],
    [brand.assets.icon192, 192, 192],
    [brand.assets.icon512, 512, 512],
    [brand.assets.iconMaskable, 512, 512],
    [brand.previewImage.url, brand.previewImage.width, brand.previewImage.height],
  ])("%s is a %i×%i PNG", (url, width, height) => {
    const file = publicFile(url);
    expect(pngSize(file)).toEqual({ width, height });
    expect(file.length).toBeLessThan(200_000);
  });

  test("favicon.ico holds 16, 32 and 48 px PNGs", () => {
    const ico = publicFile(brand.assets.favicon);
    expect(ico.readUInt16LE(2)).toBe(1); // an icon, not a cursor
    const sizes = Array.from({ length: ico.readUInt16LE(4) }, (_, i) => {
      const entry = 6 + 16 * i;
      const image = ico.subarray(ico.readUInt32LE(entry + 12), ico.readUInt32LE(entry + 12) + ico.readUInt32LE(entry + 8));
      return pngSize(image);
    });
    expect(sizes).toEqual([16, 32, 48].map((size) => ({ width: size, height: size })));
  });
});

describe("APP_PASSWORD's gate (proxy.ts matcher)", () => {
  const gated = (url: string) => unstable_doesMiddlewareMatch({ config: proxyConfig, url });

  test.each([...Object.values(brand.assets), brand.previewImage.url])("%s is served without the password", (url) => {
    expect(gated(url)).toBe(false);
  });

  test.each(["/", "/generations/abc", "/api/generations", "/favicon.ico.bak", "/brandnew", "/manifest.webmanifest/x"])("%s stays behind it", (url) => {
    expect(gated(url)).toBe(true);
  });
});

describe("truncateTitle", () => {
  test.each([
    ["A short prompt", 60, "A short prompt"],
    ["  spaced\n\tout   prompt ", 60, "spaced out prompt"],
    ["x".repeat(60), 60, "x".repeat(60)],
    ["x".repeat(61), 60, `${"x".repeat(59)}…`],
    ["ends in a space here", 10, "ends in a…"],
    ["🎬".repeat(12), 10, `${"🎬".repeat(9)}…`],
  ])("%j at %i → %j", (text, max, expected) => {
    const result = truncateTitle(text, max);
    expect(result).toBe(expected);
    expect(Array.from(result).length).toBeLessThanOrEqual(max);
  });
});
