/** The download of the URLs a run's successful writes went to (spec record_written_urls), one per line. */
export const runWrittenUrlsUrl = (runId: string) => `/api/v1/runs/${encodeURIComponent(runId)}/written-urls`;
