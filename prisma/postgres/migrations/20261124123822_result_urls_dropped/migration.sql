-- AlterTable
ALTER TABLE "Generation" ADD COLUMN     "resultUrlsDropped" INTEGER NOT NULL DEFAULT 0;
