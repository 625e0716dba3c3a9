// Billing cycles: monthly from the account's creation ("usage resets on billing date", spec 8).
// Cycle n starts at created_at plus n calendar months (UTC), the day clamped to the month's last
// day (an account created on 31 January renews on 28/29 February, then 31 March).
export interface Cycle {
  start: Date;
  end: Date;
}

export function addMonthsClamped(anchor: Date, months: number): Date {
  const y = anchor.getUTCFullYear();
  const m = anchor.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(y, m, Math.min(anchor.getUTCDate(), lastDay), anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds()),
  );
}

/** The cycle holding `now` (the first one when `now` is before creation). */
export function cycleAt(createdAt: Date, now: Date): Cycle {
  const t = now.getTime();
  let n = Math.max(0, (now.getUTCFullYear() - createdAt.getUTCFullYear()) * 12 + now.getUTCMonth() - createdAt.getUTCMonth() - 1);
  while (addMonthsClamped(createdAt, n + 1).getTime() <= t) n++;
  return { start: addMonthsClamped(createdAt, n), end: addMonthsClamped(createdAt, n + 1) };
}
