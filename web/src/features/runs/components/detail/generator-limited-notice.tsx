import type { Schemas } from '@/lib/api-client';

/** limitedSpan is "12 of 30 s": the seconds the generator was the bottleneck, of the run's length. */
function limitedSpan(result: Schemas['RunResult']): string | undefined {
  const limited = result.generator_limited_seconds ?? 0;
  if (limited <= 0) return undefined;
  const of = Math.max(limited, Math.round(result.duration_seconds));
  return `${limited} of ${of} s`;
}

/**
 * GeneratorLimitedNotice warns that the load generator, not the target, was the bottleneck for some seconds of
 * the run (generator_limited, docs/observability.md): its figures then measure the agent. Nothing otherwise.
 */
export function GeneratorLimitedNotice({ result }: { result: Schemas['RunResult'] }) {
  const span = limitedSpan(result);
  if (!span) return null;
  return (
    <div className="run-notice warn" role="note" aria-label="Generator limited">
      <strong>The load generator was the bottleneck for {span}: figures measure the agent, not the target.</strong>
      <div className="detail">
        An agent used over 90 % of its cores, or a shard&apos;s sends fell behind their schedule by more than 10 % of the
        interval between them. Add agents or connections, or lower the rate, and run again.
      </div>
    </div>
  );
}
