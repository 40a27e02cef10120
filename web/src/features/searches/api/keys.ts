// Query keys of the searches feature, in one place.
export const searchesKey = ['searches'] as const;
export const searchListKey = (project: string) => ['searches', 'list', project] as const;
export const searchKey = (id: string) => ['searches', id] as const;
