import type { Schemas } from '@/lib/api-client';

/** SpecView shows the run's spec as the API returns it (secrets already redacted). */
export function SpecView({ spec }: { spec: Schemas['RunSpec'] }) {
  return (
    <section className="card">
      <details open>
        <summary>
          <strong>Spec</strong> <span className="muted">as run, secrets redacted</span>
        </summary>
        <pre className="run-spec-json" style={{ marginTop: 10 }}>
          {JSON.stringify(spec, null, 2)}
        </pre>
      </details>
    </section>
  );
}
