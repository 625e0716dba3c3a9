UPDATE refresh_tokens SET spent_at = $2 WHERE id = $1;
