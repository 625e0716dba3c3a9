INSERT INTO kyc_webhook_events (provider, event_id, received_at) VALUES ($1, $2, $3);
