-- Enterprise custom limits (spec section 8: the enterprise rate limit is "custom", its included
-- calls by contract, its cache TTL "configurable"): per-account overrides of the plan catalogue's
-- numbers (api/plans.ts). NULL = the plan's value. Set with `reputation accounts limits`
-- (api/usage/limits.ts), enterprise accounts only; the writer UPDATEs the account's row.
--
-- New columns go at the end, so every INSERT INTO accounts names its columns.
ALTER TABLE accounts ADD COLUMN rate_per_minute INTEGER;     -- requests per minute per API key
ALTER TABLE accounts ADD COLUMN rate_per_second INTEGER;     -- requests per second per API key
ALTER TABLE accounts ADD COLUMN included_calls BIGINT;       -- calls per billing cycle (a quota with X-Quota-* headers)
ALTER TABLE accounts ADD COLUMN cache_ttl_seconds INTEGER;   -- Cache-Control max-age of reputation lookups
