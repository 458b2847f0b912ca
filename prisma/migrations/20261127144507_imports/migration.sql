-- CreateTable
CREATE TABLE "imports" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "key_id" TEXT,
    "user_id" TEXT,
    "origin" JSONB NOT NULL,
    "resource" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "upsert_by" TEXT,
    "mapping" JSONB,
    "filename" TEXT,
    "columns" JSONB,
    "status" TEXT NOT NULL,
    "error" JSONB,
    "bytes_total" BIGINT NOT NULL DEFAULT 0,
    "bytes_done" BIGINT NOT NULL DEFAULT 0,
    "lines_done" INTEGER NOT NULL DEFAULT 0,
    "rows_read" INTEGER NOT NULL DEFAULT 0,
    "rows_written" INTEGER NOT NULL DEFAULT 0,
    "rows_failed" INTEGER NOT NULL DEFAULT 0,
    "rows_created" INTEGER NOT NULL DEFAULT 0,
    "run_seconds" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "lease_token" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "imports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "import_chunks" (
    "import_id" TEXT NOT NULL,
    "start" BIGINT NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "import_chunks_pkey" PRIMARY KEY ("import_id","start")
);

-- CreateTable
CREATE TABLE "import_failed_rows" (
    "import_id" TEXT NOT NULL,
    "row" INTEGER NOT NULL,
    "line" INTEGER NOT NULL,
    "cells" JSONB NOT NULL,
    "error" TEXT NOT NULL,

    CONSTRAINT "import_failed_rows_pkey" PRIMARY KEY ("import_id","row")
);

-- CreateIndex
CREATE INDEX "imports_workspace_id_created_at_idx" ON "imports"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "imports_status_lease_until_idx" ON "imports"("status", "lease_until");

-- AddForeignKey
ALTER TABLE "imports" ADD CONSTRAINT "imports_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "import_chunks" ADD CONSTRAINT "import_chunks_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "imports"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "import_failed_rows" ADD CONSTRAINT "import_failed_rows_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "imports"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The file's pieces are stored as they are: compressing each MiB on the way in costs more time than the space it saves.
ALTER TABLE "import_chunks" ALTER COLUMN "data" SET STORAGE EXTERNAL;
