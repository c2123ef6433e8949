// 0010-idempotency-hashed-keys: from here on, scope and key (and so id) are
// keyed hashes (of the credential's principal, role and owners, and of the
// Idempotency-Key), and a kept error is its status and code only. Records
// written before hold the key as sent and errors' messages, which may quote
// the input; no request can match them any more (its scope and key are
// hashed now), so they are deleted rather than left to expire. A record
// lives 24 hours: a request repeated across the upgrade runs again, as it
// would after the record expired. In batches (auto-commit, as migrations
// run), so a busy day's records need no one huge transaction.
// Append-only: never edit this file once applied; add a new one instead.

MATCH (r:IdempotencyRecord)
CALL { WITH r DELETE r } IN TRANSACTIONS OF 1000 ROWS;
