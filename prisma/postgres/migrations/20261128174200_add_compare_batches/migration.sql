-- AlterTable
ALTER TABLE "Generation" ADD COLUMN     "batchId" TEXT;

-- CreateTable
CREATE TABLE "Batch" (
    "id" TEXT NOT NULL,
    "ownerId" TEXT NOT NULL,
    "prompt" TEXT NOT NULL,
    "idempotencyKey" TEXT,
    "requestHash" TEXT,
    "pickId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Batch_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Batch_idempotencyKey_key" ON "Batch"("idempotencyKey");

-- CreateIndex
CREATE INDEX "Batch_ownerId_createdAt_idx" ON "Batch"("ownerId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Generation_batchId_idx" ON "Generation"("batchId");

-- AddForeignKey
ALTER TABLE "Generation" ADD CONSTRAINT "Generation_batchId_fkey" FOREIGN KEY ("batchId") REFERENCES "Batch"("id") ON DELETE SET NULL ON UPDATE CASCADE;
