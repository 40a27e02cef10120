export function Component() {
  return <h1>test</h1>;
}
