-- CreateTable
CREATE TABLE "event_dispatch_queue" (
    "seq" BIGINT NOT NULL,

    CONSTRAINT "event_dispatch_queue_pkey" PRIMARY KEY ("seq")
);

-- Hand-written: what was waiting for the dispatcher stays waiting.
INSERT INTO "event_dispatch_queue" ("seq") SELECT "seq" FROM "events" WHERE "dispatched_at" IS NULL;

-- DropIndex
DROP INDEX "events_dispatched_at_seq_idx";

-- AlterTable
ALTER TABLE "events" DROP COLUMN "dispatched_at";

-- Hand-written: every new event joins the queue in the statement that writes it, whichever code
-- writes it. One trigger per statement (a transition table), not per row: a batch's thousand
-- events cost one INSERT … SELECT.
CREATE FUNCTION queue_events_for_dispatch() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_dispatch_queue (seq) SELECT seq FROM new_events;
    RETURN NULL;
END
$$;

CREATE TRIGGER events_queue_for_dispatch
    AFTER INSERT ON "events"
    REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION queue_events_for_dispatch();
