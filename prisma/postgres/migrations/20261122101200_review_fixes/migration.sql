-- AlterTable
ALTER TABLE "Generation" ADD COLUMN     "notFoundSince" TIMESTAMP(3),
ADD COLUMN     "requestHash" TEXT;
