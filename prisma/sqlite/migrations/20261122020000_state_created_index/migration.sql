-- The gallery filtered by state, newest first, stays an index scan at any size.
CREATE INDEX "Generation_state_createdAt_id_idx" ON "Generation"("state", "createdAt" DESC, "id" DESC);
