// What an uploaded file is, from its bytes alone (never its name or the
// Content-Type the client sent): its format from the first bytes, an image's
// size from its header (read before anything decodes it), and whether markup
// a browser would run hides where a browser would look for it (a polyglot).
import fs from "node:fs";
import type { MediaFormat } from "@/lib/models/media-limits";

/** How many first bytes sniffFormat needs. */
export const SNIFF_BYTES = 64;

/** The first SNIFF_BYTES of a file on disk (fewer when it is shorter). */
export async function readHead(file: string): Promise<Buffer> {
  const handle = await fs.promises.open(file, "r");
  try {
    const head = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(head, 0, SNIFF_BYTES, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

export type Sniffed = { format: MediaFormat } | { refused: "markup" | "unknown" };

export function sniffFormat(head: Buffer): Sniffed {
  const ascii = (start: number, end: number) => head.subarray(start, end).toString("latin1");
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return { format: "png" };
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return { format: "jpeg" };
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return { format: "webp" };
  if (ascii(4, 8) === "ftyp") {
    const brand = ascii(8, 12);
    if (brand === "qt  ") return { format: "mov" };
    // HEIF/AVIF stills share the box layout, and no model here takes them.
    if (/^(heic|heix|hevc|mif1|msf1|avif|avis)$/.test(brand)) return { refused: "unknown" };
    return { format: "mp4" };
  }
  if (head.subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]))) {
    return ascii(0, head.length).includes("webm") ? { format: "webm" } : { refused: "unknown" };
  }
  // SVG, HTML, XML: text a browser may render as a document and run.
  if (/^(\ufeff|\xef\xbb\xbf)?\s*</.test(ascii(0, head.length))) return { refused: "markup" };
  return { refused: "unknown" };
}

// Tags that make a browser treat bytes as a document. XMP photo metadata
// (<x:xmpmeta>, <rdf:RDF>) is markup too, but harmless and common: not listed.
const MARKUP = /<(?:script|html|body|iframe|svg|object|embed|!doctype\s+html)[\s/>]/i;
/**
 * Where markup is looked for: where a browser sniffs, not everywhere. A
 * browser decides a response is HTML from its first 1445 bytes (the WHATWG
 * MIME Sniffing standard's resource header), so the first 2 KB are scanned;
 * a page appended to an image (a polyglot) sits in the last bytes. Tags in
 * between occur by chance in compressed video (about 0.7 % of 100 MB clips
 * held one) and are harmless: the rewrite keeps only the pictures, and the
 * file is served with its own type, nosniff and a sandbox.
 */
export const MARKUP_HEAD_BYTES = 2048;
export const MARKUP_TAIL_BYTES = 1024;

/** Feed it every chunk of a file; `found` is true when a tag above is in its first or last bytes. */
export function markupScanner() {
  let head = Buffer.alloc(0);
  let tail = Buffer.alloc(0);
  return {
    push(chunk: Buffer) {
      if (head.length < MARKUP_HEAD_BYTES) head = Buffer.concat([head, chunk.subarray(0, MARKUP_HEAD_BYTES - head.length)]);
      // Copied, so the scanner never holds on to a whole chunk.
      tail = chunk.length >= MARKUP_TAIL_BYTES ? Buffer.from(chunk.subarray(-MARKUP_TAIL_BYTES)) : Buffer.concat([tail, chunk]).subarray(-MARKUP_TAIL_BYTES);
    },
    get found() {
      return MARKUP.test(head.toString("latin1")) || MARKUP.test(tail.toString("latin1"));
    },
  };
}

/**
 * An image's width and height as its header states them, read from the file
 * without decoding it; null when the header cannot be read. A decoder would
 * allocate width × height pixels: this is what bounds that before it runs.
 */
export async function readImageSize(file: string, format: "png" | "jpeg" | "webp"): Promise<{ width: number; height: number } | null> {
  const handle = await fs.promises.open(file, "r");
  try {
    const read = async (position: number, length: number) => {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      return buffer.subarray(0, bytesRead);
    };
    if (format === "png") {
      const ihdr = await read(12, 12);
      if (ihdr.length < 12 || ihdr.toString("latin1", 0, 4) !== "IHDR") return null;
      return { width: ihdr.readUInt32BE(4), height: ihdr.readUInt32BE(8) };
    }
    if (format === "webp") {
      const h = await read(12, 18);
      if (h.length < 18) return null;
      const chunk = h.toString("latin1", 0, 4);
      if (chunk === "VP8 ") return { width: h.readUInt16LE(14) & 0x3fff, height: h.readUInt16LE(16) & 0x3fff };
      if (chunk === "VP8L") {
        const bits = h.readUInt32LE(9);
        return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
      }
      if (chunk === "VP8X") return { width: h.readUIntLE(12, 3) + 1, height: h.readUIntLE(15, 3) + 1 };
      return null;
    }
    // JPEG: walk the segments to the first frame header (SOFn).
    let position = 2;
    for (let segments = 0; segments < 1000; segments++) {
      const marker = await read(position, 4);
      if (marker.length < 4 || marker[0] !== 0xff) return null;
      const type = marker[1]!;
      if (type === 0xff) {
        position += 1; // fill byte
        continue;
      }
      const length = marker.readUInt16BE(2);
      if (type >= 0xc0 && type <= 0xcf && type !== 0xc4 && type !== 0xc8 && type !== 0xcc) {
        const frame = await read(position + 5, 4);
        if (frame.length < 4) return null;
        return { width: frame.readUInt16BE(2), height: frame.readUInt16BE(0) };
      }
      if (type === 0xd9 || type === 0xda || length < 2) return null;
      position += 2 + length;
    }
    return null;
  } finally {
    await handle.close();
  }
}
