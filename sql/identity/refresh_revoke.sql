UPDATE refresh_tokens SET revoked_at = $2 WHERE list_contains($1, id) AND revoked_at IS NULL;
