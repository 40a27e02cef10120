import { useSyncExternalStore } from 'react';

// The project the dashboard shows: one choice, kept across reloads.
const key = 'barrage.project';
const listeners = new Set<() => void>();

function read(): string {
  try {
    return localStorage.getItem(key) ?? '';
  } catch {
    return '';
  }
}

export function setProject(slug: string): void {
  try {
    localStorage.setItem(key, slug);
  } catch {
    // private mode: the choice lasts for this page only
  }
  listeners.forEach((l) => l());
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** useProject is the chosen project's slug, or '' before one is chosen. */
export function useProject(): string {
  return useSyncExternalStore(subscribe, read, () => '');
}
