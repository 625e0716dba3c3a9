-- The prune-sessions job: vendor webhook deliveries seen before $1 (SESSION_RETENTION_DAYS ago).
-- They are kept to apply each event once; a vendor retries for days, not for the retention
-- (Stripe: up to 3 days), and a replay of an old delivery fails its signature's age check.
DELETE FROM kyc_webhook_events WHERE received_at < $1;
