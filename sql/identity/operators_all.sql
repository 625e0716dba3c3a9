-- Every operator's derived facts, for the owner's in-memory index (identity/operators.ts).
SELECT id, kyc_provider, jurisdiction, age_verified, age_bracket, sanctions_result, sanctions_sdn_uid,
       -- A review confirmed the screening's match (the session keeps the decision).
       coalesce((SELECT bool_or(s.review_decision = 'confirmed') FROM verification_sessions s WHERE s.operator_id = operators.id), false) AS match_confirmed,
       strftime(kyc_verified_at,      '%Y-%m-%dT%H:%M:%S.%gZ') AS kyc_verified_at,
       strftime(sanctions_checked_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS sanctions_checked_at
  FROM operators;
