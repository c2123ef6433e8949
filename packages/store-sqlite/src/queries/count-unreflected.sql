-- count-unreflected: how many episodes unreflected-episodes.sql would list
-- without a limit (the reflection trigger's figure), counting at most @upTo.
-- Same filter: both include fragments/unreflected-episodes-live.sql.
-- params: @ownerId  the owner
--         @nowMs    epoch ms of "now"
--         @upTo     stop counting here (-1: count all)
-- returns: n
SELECT count(*) AS n FROM (
SELECT 1
@include unreflected-episodes-live
 LIMIT @upTo
)
