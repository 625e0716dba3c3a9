-- The derived facts of one completed verification (never a name, address, birth date or document).
INSERT INTO operators
  (id, kyc_status, kyc_provider, kyc_verified_at, jurisdiction, age_verified, age_bracket, operator_type,
   sanctions_result, sanctions_checked_at, sanctions_sdn_uid, sanctions_score, sanctions_birth_check, created_at)
VALUES ($1, 'verified', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $3);
