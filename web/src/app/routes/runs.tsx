export function Component() {
  return <h1>runs</h1>;
}
