import { isImportedSource, type RunSource } from '@/lib/run-source';

/** ImportedBadge marks a run read from a Fortio document; nothing for a run Barrage ran. */
export function ImportedBadge({ source }: { source: RunSource }) {
  if (!isImportedSource(source)) return null;
  return (
    <span className="badge muted imported-badge" title={`Imported from a Fortio result (${source}): figures as the document recorded them`}>
      imported
    </span>
  );
}
