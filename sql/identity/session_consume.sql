-- The poll that delivers the operator token: verified becomes consumed.
UPDATE verification_sessions SET status = 'consumed', consumed_at = $2 WHERE id = $1 AND status = 'verified';
