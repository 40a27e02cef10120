import { useEffect, useState } from 'react';

/**
 * CopyLinkButton copies the page's address, the permalink of what it shows
 * when the page keeps its state in the URL, and says so in a live region.
 */
export function CopyLinkButton({ label = 'Copy link' }: { label?: string }) {
  const [said, setSaid] = useState('');
  useEffect(() => {
    if (!said) return;
    const t = setTimeout(() => setSaid(''), 4_000);
    return () => clearTimeout(t);
  }, [said]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(window.location.href);
      setSaid('Link copied.');
    } catch {
      setSaid('Could not copy: copy the address bar instead.');
    }
  };
  return (
    <span className="row">
      <button type="button" onClick={() => void copy()}>
        {label}
      </button>
      <span className="muted" role="status" data-testid="copy-link-status">
        {said}
      </span>
    </span>
  );
}
