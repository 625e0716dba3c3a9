-- A review cleared the operator's screening: clear as of the review.
UPDATE operators SET sanctions_result = 'clear', sanctions_checked_at = $2 WHERE id = $1;
