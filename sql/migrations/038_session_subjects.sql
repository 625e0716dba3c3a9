-- Whom an agent session minted by assess (or a gate's denial) is for: `wallet:<address>` or
-- `token:<token id>`, so that denials of one identity at one merchant reuse its open session
-- instead of writing a new one on every paid request. NULL for sessions made by POST /v1/sessions.
ALTER TABLE verification_sessions ADD COLUMN subject VARCHAR;
