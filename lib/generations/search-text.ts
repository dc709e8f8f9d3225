// Prompt search that behaves the same on SQLite and PostgreSQL: the prompt is
// stored lower-cased beside itself and matched with a plain `contains`, so no
// engine-specific collation or `mode: "insensitive"` is needed.

export const SEARCH_MAX_LENGTH = 200;

/** What is stored in Generation.promptSearch for a prompt. */
export const searchText = (prompt: string) => prompt.toLowerCase();

/** A query as typed, ready to match searchText(): trimmed, spaces collapsed; undefined when empty. */
export function normalizeQuery(query: string | undefined | null): string | undefined {
  const text = query?.trim().replace(/\s+/g, " ").slice(0, SEARCH_MAX_LENGTH).toLowerCase();
  return text ? text : undefined;
}
