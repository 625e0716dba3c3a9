-- Added for the sessions assess minted (`wallet:<address>` or `token:<token id>`). Those are now
-- written only when their page is used, from an id that does not name the identity
-- (identity/deferred-sessions.ts), so nothing sets it: NULL in every row. Kept, as applied.
ALTER TABLE verification_sessions ADD COLUMN subject VARCHAR;
