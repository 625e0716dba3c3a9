SELECT id, kyc_status, kyc_provider, jurisdiction, age_verified, age_bracket, operator_type,
       sanctions_result, sanctions_sdn_uid,
       strftime(kyc_verified_at,      '%Y-%m-%dT%H:%M:%S.%gZ') AS kyc_verified_at,
       strftime(sanctions_checked_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS sanctions_checked_at
  FROM operators
 WHERE id = $1;
