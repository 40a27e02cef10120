export function Component() {
  return <h1>compare</h1>;
}
