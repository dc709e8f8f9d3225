-- AlterTable
ALTER TABLE "MediaCopy" ADD COLUMN     "stillCheckedAt" TIMESTAMP(3),
ADD COLUMN     "stillKey" TEXT;
