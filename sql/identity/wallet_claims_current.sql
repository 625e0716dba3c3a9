-- The owner of each claimed wallet: its newest claim.
SELECT account_id, network, wallet, strftime(claimed_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS claimed_at
  FROM wallet_claims
QUALIFY row_number() OVER (PARTITION BY network, wallet ORDER BY claimed_at DESC) = 1;
