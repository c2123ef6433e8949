-- live (fragment): memory m is live at @nowMs: not superseded, not ended,
-- not expired, already valid. core's isLiveAt (domain/liveness.ts) in SQL,
-- written once for every statement that filters on it (invariant 6).
-- Included after a WHERE or an AND.
-- params: @nowMs
m.superseded_by IS NULL
   AND (m.valid_to_ms IS NULL OR m.valid_to_ms > @nowMs)
   AND m.expires_ms > @nowMs
   AND m.valid_from_ms <= @nowMs
