-- The user starts a verification on the page: pending, one attempt more when $3 is 1 (the caller
-- decided it in the same transaction: identity/sessions.ts, startAttempt), and the vendor's
-- session when there is one.
UPDATE verification_sessions
   SET status = 'pending', attempts = attempts + $3, failure_code = NULL, provider_ref = coalesce($2, provider_ref)
 WHERE id = $1;
