-- A reused session's poll secret is replaced: the newest denial's secret polls it.
UPDATE verification_sessions SET poll_secret_hash = $2 WHERE id = $1;
