-- AlterTable
ALTER TABLE "Batch" ADD COLUMN     "shareKey" TEXT,
ADD COLUMN     "shareSeed" TEXT,
ADD COLUMN     "shareShowsPrompt" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "sharedAt" TIMESTAMP(3);

-- CreateIndex
CREATE UNIQUE INDEX "Batch_shareKey_key" ON "Batch"("shareKey");
