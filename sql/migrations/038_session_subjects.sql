-- Whom an agent session minted by assess (or a gate's denial) is for: `wallet:<address>` or
-- `token:<token id>`, for analysis (how many sessions an identity's denials made, how many were
-- opened). Every denial gets a session of its own (docs/decisions.md, assess). NULL for sessions
-- made by POST /v1/sessions.
ALTER TABLE verification_sessions ADD COLUMN subject VARCHAR;
