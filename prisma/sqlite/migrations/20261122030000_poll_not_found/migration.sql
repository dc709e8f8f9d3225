-- Consecutive "no such task" answers, counted apart from other poll failures.
ALTER TABLE "Generation" ADD COLUMN "pollNotFound" INTEGER NOT NULL DEFAULT 0;
