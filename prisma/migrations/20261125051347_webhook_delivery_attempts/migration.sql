-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "redelivery" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "webhook_delivery_attempts" (
    "delivery_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "attempted_at" TIMESTAMPTZ(3) NOT NULL,
    "delivered" BOOLEAN NOT NULL,
    "response_code" INTEGER,
    "response_time_ms" INTEGER NOT NULL,
    "error" TEXT,

    CONSTRAINT "webhook_delivery_attempts_pkey" PRIMARY KEY ("delivery_id","attempt")
);

-- AddForeignKey
ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "webhook_delivery_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Deliveries logged before attempts were kept: their last recorded attempt, as the row shows it.
-- Rows under a lease are left out: their attempt is in flight and records itself.
INSERT INTO "webhook_delivery_attempts" ("delivery_id", "attempt", "kind", "attempted_at", "delivered", "response_code", "response_time_ms", "error")
SELECT "id", "attempts",
       CASE WHEN "test" THEN 'test' WHEN "attempts" > 1 THEN 'retry' ELSE 'first' END,
       "last_attempt_at", "status" = 'delivered', "response_code", COALESCE("response_time_ms", 0), "error"
FROM "webhook_deliveries"
WHERE "attempts" > 0 AND "last_attempt_at" IS NOT NULL AND "locked_until" IS NULL;
