// The main bundle's first module (main.tsx imports it before anything else):
// the page's first reads start here, before React and the router have run.
import { startEarlyReads } from './lib/early-reads';

startEarlyReads(window.location.origin, window.location.pathname);
