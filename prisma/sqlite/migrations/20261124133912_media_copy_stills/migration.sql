-- AlterTable
ALTER TABLE "MediaCopy" ADD COLUMN "stillCheckedAt" DATETIME;
ALTER TABLE "MediaCopy" ADD COLUMN "stillKey" TEXT;
