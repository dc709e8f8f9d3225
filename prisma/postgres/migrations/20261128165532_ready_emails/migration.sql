-- CreateEnum
CREATE TYPE "ReadyEmailState" AS ENUM ('PENDING', 'SENDING', 'SENT', 'CANCELLED', 'GAVE_UP');

-- AlterTable
ALTER TABLE "DevMail" ADD COLUMN     "linkLabel" TEXT NOT NULL DEFAULT 'Open the sign-in link';

-- AlterTable
ALTER TABLE "Generation" ADD COLUMN     "emailWhenReady" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "EmailSettings" (
    "userId" TEXT NOT NULL,
    "readyEmails" BOOLEAN NOT NULL DEFAULT false,
    "unsubscribedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "EmailSettings_pkey" PRIMARY KEY ("userId")
);

-- CreateTable
CREATE TABLE "ReadyEmail" (
    "id" SERIAL NOT NULL,
    "generationId" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "ownerId" TEXT NOT NULL,
    "state" "ReadyEmailState" NOT NULL DEFAULT 'PENDING',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextRunAt" TIMESTAMP(3) NOT NULL,
    "leaseUntil" TIMESTAMP(3),
    "giveUpAt" TIMESTAMP(3) NOT NULL,
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "sentAt" TIMESTAMP(3),

    CONSTRAINT "ReadyEmail_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ReadyEmail_state_nextRunAt_idx" ON "ReadyEmail"("state", "nextRunAt");

-- CreateIndex
CREATE UNIQUE INDEX "ReadyEmail_generationId_outcome_key" ON "ReadyEmail"("generationId", "outcome");

-- AddForeignKey
ALTER TABLE "EmailSettings" ADD CONSTRAINT "EmailSettings_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ReadyEmail" ADD CONSTRAINT "ReadyEmail_generationId_fkey" FOREIGN KEY ("generationId") REFERENCES "Generation"("id") ON DELETE CASCADE ON UPDATE CASCADE;
