-- The display name the verify page shows for an account's sessions.
UPDATE accounts SET name = $2 WHERE id = $1;
