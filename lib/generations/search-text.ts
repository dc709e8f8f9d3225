// Prompt search that behaves the same on SQLite and PostgreSQL: the prompt is
// stored lower-cased beside itself and matched with a plain `contains`, so no
// engine-specific collation or `mode: "insensitive"` is needed.

export const SEARCH_MAX_LENGTH = 200;

/**
 * LIKE's wildcards (% and _) and PostgreSQL's escape character (a backslash) are
 * stored and searched as private-use characters, so that what is typed is
 * looked for literally on both engines (Prisma's `contains` does not escape
 * them, and SQLite's LIKE has no escape character unless told one).
 * promptSearch is only ever matched, never shown.
 */
const LITERAL: Record<string, string> = { "%": "\uE025", _: "\uE05F", "\\": "\uE05C" };
const literal = (text: string) => text.replace(/[%_\\]/g, (c) => LITERAL[c]!);

/** What is stored in Generation.promptSearch for a prompt. */
export const searchText = (prompt: string) => literal(prompt.toLowerCase());

/** A query as typed, ready to match searchText(): trimmed, spaces collapsed; undefined when empty. */
export function normalizeQuery(query: string | undefined | null): string | undefined {
  const text = query?.trim().replace(/\s+/g, " ").slice(0, SEARCH_MAX_LENGTH).toLowerCase();
  return text ? literal(text) : undefined;
}
