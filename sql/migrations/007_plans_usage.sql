-- Usage per account and billing cycle (spec 8; api/usage/meter.ts). The owner counts calls in
-- memory and appends one row per (account, cycle) at each flush with the calls counted since the
-- previous one; readers sum the rows. Append-only, no keys (see 001's header).
CREATE TABLE usage_counts (
  account_id  VARCHAR   NOT NULL,
  plan        VARCHAR   NOT NULL,   -- the account's plan when these calls were counted
  cycle_start TIMESTAMP NOT NULL,   -- UTC; cycles are monthly from accounts.created_at
  cycle_end   TIMESTAMP NOT NULL,
  calls       BIGINT    NOT NULL,   -- calls counted since the previous flush
  flushed_at  TIMESTAMP NOT NULL
);
