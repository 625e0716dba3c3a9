-- A person's review of a flagged session: cleared (verified, its token deliverable) or confirmed.
UPDATE verification_sessions
   SET status = $2, review_decision = $3, reviewed_at = $4, completed_at = coalesce($5, completed_at)
 WHERE id = $1;
