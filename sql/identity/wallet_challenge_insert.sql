-- A one-time challenge an account signs with a wallet to claim it (POST /v1/wallets/challenge).
INSERT INTO wallet_challenges (nonce, account_id, network, wallet, chain_id, message, issued_at, expires_at, used_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL);
