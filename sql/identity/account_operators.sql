-- Each account's operator: the one its holder's newest own verification recorded.
SELECT account_id, arg_max(operator_id, completed_at) AS operator_id
  FROM verification_sessions
 WHERE purpose = 'account' AND operator_id IS NOT NULL
 GROUP BY account_id;
