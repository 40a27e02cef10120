import { createContext, useContext } from 'react';

/**
 * ReadOnlyContext is true on a read-only server (barrage-api -read-only, as
 * GET /auth/methods says): nobody signs in and the API refuses every change,
 * so the pages hide their start, stop and edit controls. The layout provides it.
 */
export const ReadOnlyContext = createContext(false);

/** useReadOnly reports whether this server is read-only. */
export function useReadOnly(): boolean {
  return useContext(ReadOnlyContext);
}
