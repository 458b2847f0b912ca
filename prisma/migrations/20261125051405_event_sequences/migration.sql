-- Per-record event sequences: events.sequence numbers the events of one record 1, 2, 3… in
-- commit order; record_sequences holds the last number handed out for each record.

-- AlterTable: added empty, numbered from the log's own order, then required.
ALTER TABLE "events" ADD COLUMN     "sequence" INTEGER;

UPDATE "events" e SET "sequence" = n.sequence
FROM (
  SELECT "id", row_number() OVER (PARTITION BY "entity_type", "entity_id" ORDER BY "seq")::integer AS sequence
  FROM "events"
) n
WHERE n."id" = e."id";

ALTER TABLE "events" ALTER COLUMN "sequence" SET NOT NULL;

-- CreateTable
CREATE TABLE "record_sequences" (
    "entity_type" TEXT NOT NULL,
    "entity_id" TEXT NOT NULL,
    "last" INTEGER NOT NULL,

    CONSTRAINT "record_sequences_pkey" PRIMARY KEY ("entity_type","entity_id")
);

INSERT INTO "record_sequences" ("entity_type", "entity_id", "last")
SELECT "entity_type", "entity_id", max("sequence") FROM "events" GROUP BY "entity_type", "entity_id";

-- CreateIndex
CREATE UNIQUE INDEX "events_entity_type_entity_id_sequence_key" ON "events"("entity_type", "entity_id", "sequence");

-- deal.stage_changed names the pipeline and the owner (envelope B shows names): events written
-- before carry only the ids, so the names are filled in from the records. Users are never
-- deleted; a pipeline is deleted only once it has no deals, and for such a one the id stands in
-- for the name it no longer has.
UPDATE "events" e SET "data" = jsonb_set(
    jsonb_set(e."data", '{deal,pipeline_name}', to_jsonb(COALESCE(p."name", x."data"->'deal'->>'pipeline_id'))),
    '{deal,owner_name}', COALESCE(to_jsonb(u."name"), 'null'::jsonb))
FROM "events" x
LEFT JOIN "pipelines" p ON p."id" = x."data"->'deal'->>'pipeline_id'
LEFT JOIN "users" u ON u."id" = x."data"->'deal'->>'owner_id'
WHERE x."id" = e."id" AND e."type" = 'deal.stage_changed' AND NOT (e."data"->'deal' ? 'pipeline_name');
