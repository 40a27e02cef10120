// The main bundle's first module (main.tsx imports it before anything else):
// the page's first reads start here, before React and the router have run,
// and the date formatter is made before the first render needs it.
import { startEarlyReads } from './lib/early-reads';
import { warmDateFormat } from './lib/format';

startEarlyReads(window.location.origin, window.location.pathname);
// When the main thread is next idle: in a first visit, while the page's reads are on their way.
if (typeof requestIdleCallback === 'function') requestIdleCallback(warmDateFormat);
else setTimeout(warmDateFormat);
