-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "GenerationState" AS ENUM ('SUBMITTING', 'PENDING', 'SUCCESS', 'FAILURE', 'SUBMIT_FAILED');

-- CreateEnum
CREATE TYPE "DeliverySource" AS ENUM ('CALLBACK', 'POLL');

-- CreateEnum
CREATE TYPE "DeliveryOutcome" AS ENUM ('APPLIED', 'DUPLICATE', 'LATE_IGNORED', 'STILL_PENDING', 'REJECTED', 'UNKNOWN_TASK', 'ERROR');

-- CreateTable
CREATE TABLE "Generation" (
    "id" TEXT NOT NULL,
    "taskId" TEXT,
    "model" TEXT NOT NULL,
    "state" "GenerationState" NOT NULL DEFAULT 'SUBMITTING',
    "prompt" TEXT NOT NULL,
    "input" TEXT NOT NULL DEFAULT '{}',
    "gatewayMetadata" TEXT,
    "resultUrls" TEXT NOT NULL DEFAULT '[]',
    "creditsConsumed" DOUBLE PRECISION,
    "errorCode" TEXT,
    "errorMessage" TEXT,
    "idempotencyKey" TEXT,
    "callbackEnabled" BOOLEAN NOT NULL DEFAULT true,
    "lastHeardAt" TIMESTAMP(3),
    "pollLeaseUntil" TIMESTAMP(3),
    "pollFailures" INTEGER NOT NULL DEFAULT 0,
    "pollNotFound" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "completedAt" TIMESTAMP(3),

    CONSTRAINT "Generation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Delivery" (
    "id" SERIAL NOT NULL,
    "generationId" TEXT,
    "taskId" TEXT,
    "source" "DeliverySource" NOT NULL,
    "outcome" "DeliveryOutcome" NOT NULL,
    "reportedState" TEXT,
    "detail" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Delivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RateLimit" (
    "key" TEXT NOT NULL,
    "windowStart" TIMESTAMP(3) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "RateLimit_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE UNIQUE INDEX "Generation_taskId_key" ON "Generation"("taskId");

-- CreateIndex
CREATE UNIQUE INDEX "Generation_idempotencyKey_key" ON "Generation"("idempotencyKey");

-- CreateIndex
CREATE INDEX "Generation_createdAt_id_idx" ON "Generation"("createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Generation_state_createdAt_id_idx" ON "Generation"("state", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Generation_state_pollLeaseUntil_idx" ON "Generation"("state", "pollLeaseUntil");

-- CreateIndex
CREATE INDEX "Generation_model_createdAt_idx" ON "Generation"("model", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Delivery_generationId_createdAt_idx" ON "Delivery"("generationId", "createdAt");

-- CreateIndex
CREATE INDEX "Delivery_createdAt_idx" ON "Delivery"("createdAt");

-- AddForeignKey
ALTER TABLE "Delivery" ADD CONSTRAINT "Delivery_generationId_fkey" FOREIGN KEY ("generationId") REFERENCES "Generation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

