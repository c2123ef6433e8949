-- insert-outbox-job: record one job in the outbox, in the caller's write
-- transaction. A job whose id is already pending is left as it is (same id,
-- same work: the queue would run it once anyway), not an error.
-- params: @job_id, @name, @owner_id, @payload_json (JSON object),
--         @recorded_at (ISO time the write happened)
INSERT INTO outbox (job_id, name, owner_id, payload_json, recorded_at)
VALUES (@job_id, @name, @owner_id, @payload_json, @recorded_at)
ON CONFLICT (job_id) DO NOTHING
