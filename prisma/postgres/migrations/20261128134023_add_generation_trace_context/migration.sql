-- AlterTable
ALTER TABLE "Generation" ADD COLUMN     "traceContext" TEXT;
