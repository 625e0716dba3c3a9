-- A wallet an account proved it controls (POST /v1/wallets/claim).
INSERT INTO wallet_claims (account_id, network, wallet, method, chain_id, claimed_at) VALUES ($1, $2, $3, $4, $5, $6);
