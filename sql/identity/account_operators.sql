-- Each account holder's own verifications that recorded an operator, oldest first by the time of
-- the verification (a review's later completed_at does not reorder them): the newest is the
-- account's operator (identity/wallets/directory.ts), as it is in memory.
SELECT s.account_id, s.operator_id
  FROM verification_sessions s
  JOIN operators o ON o.id = s.operator_id
 WHERE s.purpose = 'account'
 ORDER BY s.account_id, o.created_at, o.id;
