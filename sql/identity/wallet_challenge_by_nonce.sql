-- The challenge of a nonce, as a claim checks it; times as ISO-8601 UTC with milliseconds.
SELECT nonce, account_id, network, wallet, chain_id, message,
       strftime(issued_at,  '%Y-%m-%dT%H:%M:%S.%gZ') AS issued_at,
       strftime(expires_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS expires_at,
       strftime(used_at,    '%Y-%m-%dT%H:%M:%S.%gZ') AS used_at
  FROM wallet_challenges
 WHERE nonce = $1;
