import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import { isPageLoadError } from '@/lib/unreachable';

export function RouteError() {
  const err = useRouteError();
  if (isPageLoadError(err)) {
    // The page's code is fetched when first opened: with the server gone it cannot be.
    return (
      <div className="state error" role="alert" data-testid="page-load-error">
        <h1>This page could not load</h1>
        <p>The server cannot be reached, so its code could not be fetched. Check that barrage-api is running, then retry.</p>
        <p className="row" style={{ justifyContent: 'center' }}>
          <button type="button" onClick={() => window.location.reload()}>
            Retry
          </button>
          <Link to="/runs">Back to runs</Link>
        </p>
      </div>
    );
  }
  const text = isRouteErrorResponse(err) ? `${err.status} ${err.statusText}` : err instanceof Error ? err.message : 'Unknown error';
  return (
    <div className="state error" role="alert">
      <h1>This page failed</h1>
      <p>{text}</p>
      <Link to="/runs">Back to runs</Link>
    </div>
  );
}
