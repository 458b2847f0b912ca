-- Hand-written: the statement that queues new events also wakes the webhook dispatchers that
-- LISTEN on crm_events (at commit; PostgreSQL sends one notification per transaction for the same
-- channel and payload), so an event is fanned out at once instead of at the next poll.
CREATE OR REPLACE FUNCTION queue_events_for_dispatch() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_dispatch_queue (seq) SELECT seq FROM new_events;
    PERFORM pg_notify('crm_events', '');
    RETURN NULL;
END
$$;
