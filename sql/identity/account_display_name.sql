-- The display name of the account a deferred session names (identity/deferred-sessions.ts), for
-- the verify page; no row for an account that is gone.
SELECT name AS merchant_name FROM accounts WHERE id = $1;
