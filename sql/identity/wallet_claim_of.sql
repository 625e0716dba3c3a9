-- The standing (newest) claim of one wallet, if any.
SELECT account_id, strftime(claimed_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS claimed_at
  FROM wallet_claims
 WHERE network = $1 AND wallet = $2
 ORDER BY claimed_at DESC
 LIMIT 1;
