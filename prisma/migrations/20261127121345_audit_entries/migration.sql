-- CreateTable
CREATE TABLE "audit_entries" (
    "id" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "actor" JSONB NOT NULL,
    "via" TEXT NOT NULL,
    "request_id" TEXT,
    "ip" TEXT,
    "resource" TEXT NOT NULL,
    "record_id" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "changes" JSONB NOT NULL,
    "event_id" TEXT,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "audit_entries_workspace_id_seq_idx" ON "audit_entries"("workspace_id", "seq");

-- CreateIndex
CREATE INDEX "audit_entries_workspace_id_record_id_seq_idx" ON "audit_entries"("workspace_id", "record_id", "seq");

-- CreateIndex
CREATE INDEX "audit_entries_workspace_id_occurred_at_idx" ON "audit_entries"("workspace_id", "occurred_at");

-- CreateIndex
CREATE UNIQUE INDEX "audit_entries_seq_key" ON "audit_entries"("seq");

-- AddForeignKey
ALTER TABLE "audit_entries" ADD CONSTRAINT "audit_entries_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
