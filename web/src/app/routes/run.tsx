export function Component() {
  return <h1>run</h1>;
}
