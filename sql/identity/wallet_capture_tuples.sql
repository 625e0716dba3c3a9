-- Each (token, network, wallet) tuple of wallet capture: its transaction count, first sighting and
-- the idempotency key of its newest capture, NULL when that one had none (arg_max_null keeps it;
-- arg_max would skip to an older key) (identity/wallets/directory.ts).
SELECT token_id, any_value(operator_id) AS operator_id, network, wallet,
       count(*)::INTEGER AS captures,
       strftime(min(captured_at), '%Y-%m-%dT%H:%M:%S.%gZ') AS first_at,
       arg_max_null(idempotency_key, seq) AS last_key
  FROM wallet_captures
 GROUP BY token_id, network, wallet;
