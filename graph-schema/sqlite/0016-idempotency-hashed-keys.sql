-- 0016-idempotency-hashed-keys: from here on, scope and key are keyed hashes
-- (of the credential's principal, role and owners, and of the
-- Idempotency-Key), and a kept error is its status and code only. Rows
-- written before hold the key as sent and errors' messages, which may quote
-- the input; no request can match them any more (its scope and key are
-- hashed now), so they are dropped rather than left to expire. A row lives
-- 24 hours: a request repeated across the upgrade runs again, as it would
-- after the row expired.
-- Append-only: never edit this file once applied; add a new one instead.

DELETE FROM idempotency;
