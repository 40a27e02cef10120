/** ImportedNotice says where an imported run's figures come from and what they cannot do. */
export function ImportedNotice({ origin }: { origin?: string }) {
  return (
    <div className="run-notice info" role="note" data-testid="imported-notice">
      <strong>Imported from a Fortio result: figures as the document recorded them; no HDR histogram, so it cannot be merged losslessly.</strong>
      {origin && (
        <div className="detail">
          Origin: <span className="mono">{origin}</span>
        </div>
      )}
    </div>
  );
}
