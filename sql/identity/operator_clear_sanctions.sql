-- A review cleared the operator's screening: clear as of the review. The birth check goes with
-- the cleared match (with the entry, in_listed_years would say more of the person than "clear").
UPDATE operators SET sanctions_result = 'clear', sanctions_checked_at = $2, sanctions_birth_check = NULL WHERE id = $1;
