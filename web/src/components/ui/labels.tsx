export function Labels({ labels }: { labels?: Record<string, string> }) {
  const entries = Object.entries(labels ?? {});
  if (entries.length === 0) return null;
  return (
    <span>
      {entries.map(([k, v]) => (
        <span key={k} className="label-chip">
          {k}={v}
        </span>
      ))}
    </span>
  );
}
