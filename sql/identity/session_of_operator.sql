-- The verification session that recorded an operator, with its review.
SELECT id, review_decision FROM verification_sessions WHERE operator_id = $1;
