// Pure pieces of lib/copies: which addresses a download may reach, which
// content types a stored copy is served with, and byte-range parsing.
import { describe, expect, test } from "vitest";
import { parseEnv } from "@/lib/env";
import { isPublicAddress } from "@/lib/copies/addresses";
import { mediaContentType } from "@/lib/copies/copy-file";
import { parseRange } from "@/lib/copies/serve-media";

describe("isPublicAddress", () => {
  test.each([
    ["93.184.216.34", true],
    ["8.8.8.8", true],
    ["2606:4700:4700::1111", true],
    ["127.0.0.1", false],
    ["127.255.0.9", false],
    ["10.1.2.3", false],
    ["172.16.0.1", false],
    ["172.31.255.255", false],
    ["172.32.0.1", true],
    ["192.168.1.1", false],
    ["169.254.169.254", false],
    ["100.64.0.1", false],
    ["0.0.0.0", false],
    ["224.0.0.1", false],
    ["255.255.255.255", false],
    ["::1", false],
    ["::", false],
    ["::ffff:127.0.0.1", false],
    ["::ffff:7f00:1", false],
    ["::ffff:8.8.8.8", false],
    ["fd00::1", false],
    ["fe80::1", false],
    ["ff02::1", false],
    ["64:ff9b::7f00:1", false],
    ["localhost", false],
    ["not an address", false],
  ])("%s → %s", (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe("mediaContentType", () => {
  test.each([
    ["video/mp4", "https://cdn.example.com/a.mp4", "video/mp4"],
    ["Video/WebM; codecs=vp9", "https://cdn.example.com/a", "video/webm"],
    ["image/png", "https://cdn.example.com/a", "image/png"],
    // Never passed on: the copy is served from our own origin.
    ["text/html", "https://cdn.example.com/a.mp4", "video/mp4"],
    ["image/svg+xml", "https://cdn.example.com/a.svg", "application/octet-stream"],
    ["application/octet-stream", "https://cdn.example.com/clip.mov", "video/quicktime"],
    [null, "https://cdn.example.com/clip", "application/octet-stream"],
  ])("%s at %s → %s", (header, url, expected) => {
    expect(mediaContentType(header, url)).toBe(expected);
  });
});

describe("parseRange", () => {
  test.each([
    ["bytes=0-99", 1000, { start: 0, end: 99 }],
    ["bytes=900-", 1000, { start: 900, end: 999 }],
    ["bytes=-100", 1000, { start: 900, end: 999 }],
    ["bytes=500-5000", 1000, { start: 500, end: 999 }],
    ["bytes=1000-", 1000, "unsatisfiable"],
    ["bytes=-0", 1000, "unsatisfiable"],
    ["bytes=0-1,5-9", 1000, null],
    ["items=0-1", 1000, null],
    [null, 1000, null],
  ] as const)("%s of %i bytes → %j", (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});

describe("media configuration", () => {
  test("zero configuration keeps copies on the local disk under data/media", () => {
    expect(parseEnv({})).toMatchObject({ MEDIA_STORAGE: "local", MEDIA_LOCAL_DIR: expect.stringMatching(/\/data\/media$/), S3_FORCE_PATH_STYLE: false });
  });

  test.each([
    ["s3 without a bucket", { MEDIA_STORAGE: "s3" }, "S3_BUCKET: is required when MEDIA_STORAGE=s3"],
    ["an unknown backend", { MEDIA_STORAGE: "ftp" }, "MEDIA_STORAGE"],
    ["an S3 endpoint that is not http(s)", { MEDIA_STORAGE: "s3", S3_BUCKET: "b", S3_ENDPOINT: "file:///tmp" }, "S3_ENDPOINT"],
    ["a size cap past what a row can hold", { MEDIA_MAX_BYTES: "3000000000" }, "MEDIA_MAX_BYTES"],
  ])("refuses %s, naming the variable", (_name, source, message) => {
    expect(() => parseEnv(source)).toThrow(message);
  });

  test("S3 for R2: endpoint, region auto, path style as given", () => {
    const env = parseEnv({ MEDIA_STORAGE: "s3", S3_BUCKET: "media", S3_ENDPOINT: "https://acc.r2.cloudflarestorage.com", S3_FORCE_PATH_STYLE: "true" });
    expect(env).toMatchObject({ MEDIA_STORAGE: "s3", S3_BUCKET: "media", S3_REGION: "auto", S3_FORCE_PATH_STYLE: true, S3_PRESIGN_SECONDS: 900 });
  });
});
