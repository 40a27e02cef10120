// Query keys of the sync feature, in one place: the mutations reach every view through them.
export const syncSourcesKey = ['sync-sources'] as const;
export const syncSourceListKey = (project: string) => ['sync-sources', 'list', project] as const;
export const syncSourceKey = (id: string) => ['sync-sources', id] as const;
export const syncRunsKey = (sourceId: string) => ['sync-sources', sourceId, 'runs'] as const;
export const syncRunKey = (id: string) => ['sync-runs', id] as const;
