-- `reputation assessments`: the newest assess decisions first ($1 an account or NULL for all, $2
-- allow | deny or NULL for both, $3 at most this many rows). Times as ISO-8601 UTC.
SELECT strftime(assessed_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS assessed_at,
       request_id, account_id, identity_kind, identity, operator_id, decision, reasons,
       policy_hash, signer_match, signer_sanctions
  FROM assessments
 WHERE ($1::VARCHAR IS NULL OR account_id = $1::VARCHAR)
   AND ($2::VARCHAR IS NULL OR decision = $2::VARCHAR)
 ORDER BY assessments.assessed_at DESC, request_id DESC
 LIMIT $3;
