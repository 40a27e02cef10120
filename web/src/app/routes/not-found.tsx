import { Link } from 'react-router';

export function Component() {
  return (
    <div className="state">
      <h1>No such page</h1>
      <Link to="/runs">Back to runs</Link>
    </div>
  );
}
