-- AlterEnum (PostgreSQL 12 or later: the values are not used in this transaction)
ALTER TYPE "CreditEntryKind" ADD VALUE 'DISPUTE';
ALTER TYPE "CreditEntryKind" ADD VALUE 'COLLECT';

-- AlterTable
ALTER TABLE "Purchase" ADD COLUMN     "creditsCollected" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "disputeClawedBack" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "disputeId" TEXT,
ADD COLUMN     "disputeOwed" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "disputeStatus" TEXT;
