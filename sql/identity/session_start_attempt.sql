-- The user starts a verification on the page: pending, and the vendor's session when there is one.
-- An attempt is counted when it is the first or follows a failure; starting again while pending
-- (a reload of the vendor's page) is the same attempt.
UPDATE verification_sessions
   SET status = 'pending',
       attempts = CASE WHEN status = 'failed' OR attempts = 0 THEN attempts + 1 ELSE attempts END,
       failure_code = NULL,
       provider_ref = coalesce($2, provider_ref)
 WHERE id = $1;
