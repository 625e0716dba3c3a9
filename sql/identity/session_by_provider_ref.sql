SELECT id FROM verification_sessions WHERE kyc_provider = $1 AND provider_ref = $2;
