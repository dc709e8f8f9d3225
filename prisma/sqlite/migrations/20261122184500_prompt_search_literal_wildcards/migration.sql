-- Gallery search: %, _ and \ in prompts are stored as private-use characters
-- (lib/generations/search-text.ts), so that a search looks for them literally.
UPDATE "Generation" SET "promptSearch" = replace(replace(replace("promptSearch", '%', ''), '_', ''), '\', '') WHERE "promptSearch" <> replace(replace(replace("promptSearch", '%', ''), '_', ''), '\', '');
