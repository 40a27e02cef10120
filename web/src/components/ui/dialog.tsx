import { useEffect, useId, useRef, type ReactNode } from 'react';
import './dialog.css';

/**
 * Dialog is a modal dialog, the platform's <dialog> opened with showModal:
 * the page behind it is inert, focus moves into it (to the element marked
 * data-autofocus, else its first control), Escape closes it, and when it
 * closes focus goes back to the control that opened it. It is open while
 * mounted; onClose asks its owner to unmount it.
 */
export function Dialog({ title, children, onClose }: { title: string; children: ReactNode; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return undefined;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    return () => {
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={`${id}-title`}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id={`${id}-title`}>{title}</h2>
      {children}
    </dialog>
  );
}
