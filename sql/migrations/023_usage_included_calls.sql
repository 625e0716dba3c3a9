-- The included calls an enterprise account had of its own when its calls were counted
-- (api/usage/meter.ts), kept with the counts like the plan is, so `reputation usage` bills a past
-- cycle by the quota in force then, not by an override set later. NULL = no override: the plan's
-- number. Rows counted before this migration take the account's override as it is now, which is
-- what they were billed by until now.
ALTER TABLE usage_counts ADD COLUMN included_calls_override BIGINT;
UPDATE usage_counts SET included_calls_override = (SELECT max(a.included_calls) FROM accounts a WHERE a.id = usage_counts.account_id);
