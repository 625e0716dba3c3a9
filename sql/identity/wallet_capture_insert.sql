INSERT INTO wallet_captures (token_id, operator_id, account_id, network, wallet, idempotency_key, captured_at, seq)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8);
