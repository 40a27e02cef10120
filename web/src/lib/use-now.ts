import { useEffect, useState } from 'react';

/** useNow is the current time in ms, refreshed every periodMs while enabled. */
export function useNow(periodMs = 1_000, enabled = true): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!enabled) return;
    const t = setInterval(() => setNow(Date.now()), periodMs);
    return () => clearInterval(t);
  }, [periodMs, enabled]);
  return now;
}
