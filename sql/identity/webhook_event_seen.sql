SELECT count(*) > 0 AS seen FROM kyc_webhook_events WHERE provider = $1 AND event_id = $2;
