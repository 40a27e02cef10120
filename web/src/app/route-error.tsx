import { isRouteErrorResponse, Link, useRouteError } from 'react-router';

export function RouteError() {
  const err = useRouteError();
  const text = isRouteErrorResponse(err) ? `${err.status} ${err.statusText}` : err instanceof Error ? err.message : 'Unknown error';
  return (
    <div className="state error" role="alert">
      <h1>This page failed</h1>
      <p>{text}</p>
      <Link to="/runs">Back to runs</Link>
    </div>
  );
}
