SELECT id, name, plan, status FROM accounts WHERE id = $1;
