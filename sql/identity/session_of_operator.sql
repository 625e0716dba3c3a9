-- The verification session that recorded an operator.
SELECT id FROM verification_sessions WHERE operator_id = $1;
