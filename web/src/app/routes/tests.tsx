export function Component() {
  return <h1>tests</h1>;
}
