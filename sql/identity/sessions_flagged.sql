-- Flagged sessions waiting for a review (oldest first), with the listing their screening matched.
SELECT s.id AS session_id, s.account_id, a.name AS merchant_name, s.operator_id,
       strftime(s.completed_at, '%Y-%m-%dT%H:%M:%SZ') AS flagged_at,
       o.sanctions_result, o.sanctions_sdn_uid, round(o.sanctions_score, 3) AS sanctions_score,
       o.sanctions_birth_check, o.jurisdiction
  FROM verification_sessions s
  LEFT JOIN accounts a ON a.id = s.account_id
  LEFT JOIN operators o ON o.id = s.operator_id
 WHERE s.status = 'flagged' AND s.review_decision IS NULL
 ORDER BY s.completed_at, s.id;
