-- One verification session with what the poll, the page and the state changes read; times as
-- ISO-8601 UTC with milliseconds. The merchant's display name comes from its account.
SELECT s.id, s.account_id, s.purpose, s.context, s.product_name, s.poll_secret_hash, s.status, s.kyc_provider,
       s.provider_ref, s.attempts, s.failure_code, s.operator_id, s.review_decision,
       strftime(s.created_at,   '%Y-%m-%dT%H:%M:%S.%gZ') AS created_at,
       strftime(s.expires_at,   '%Y-%m-%dT%H:%M:%S.%gZ') AS expires_at,
       strftime(s.completed_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS completed_at,
       strftime(s.consumed_at,  '%Y-%m-%dT%H:%M:%S.%gZ') AS consumed_at,
       strftime(s.reviewed_at,  '%Y-%m-%dT%H:%M:%S.%gZ') AS reviewed_at,
       a.name AS merchant_name
  FROM verification_sessions s
  LEFT JOIN accounts a ON a.id = s.account_id
 WHERE s.id = $1;
