export function Component() {
  return <h1>new-run</h1>;
}
