-- A challenge spent by the claim it proved (single use); the claim checked used_at in the same unit.
UPDATE wallet_challenges SET used_at = $2 WHERE nonce = $1 AND used_at IS NULL;
