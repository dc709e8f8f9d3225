-- AlterTable
ALTER TABLE "Generation" ADD COLUMN     "claimedFrom" TEXT;

-- AlterTable
ALTER TABLE "GuestClaim" ADD COLUMN     "heldBought" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "heldReturned" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "welcomeOwed" INTEGER NOT NULL DEFAULT 0;
