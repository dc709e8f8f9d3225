-- Gallery search: promptSearch LIKE '%…%' can use a trigram index, where a b-tree cannot.
-- pg_trgm ships with PostgreSQL (contrib) and is a trusted extension since
-- PostgreSQL 13, so a database owner may create it, as hosted services allow.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- CreateIndex
CREATE INDEX "Generation_promptSearch_trgm_idx" ON "Generation" USING GIN ("promptSearch" gin_trgm_ops);
