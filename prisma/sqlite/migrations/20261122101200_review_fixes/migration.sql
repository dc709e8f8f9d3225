-- AlterTable
ALTER TABLE "Generation" ADD COLUMN "notFoundSince" DATETIME;
ALTER TABLE "Generation" ADD COLUMN "requestHash" TEXT;
