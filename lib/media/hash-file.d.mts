/** The file's SHA-256 in hex, read through one reused buffer (hash-file.mjs). */
export function hashFile(file: string): Promise<string>;
