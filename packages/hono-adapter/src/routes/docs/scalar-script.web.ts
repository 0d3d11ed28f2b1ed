// Edge runtimes have no file system: the explorer script is not bundled (it is 4 MB). `reference.scriptUrl`
// points the page at a copy you host; otherwise /reference/scalar.js answers 404 with that advice.
export function loadScalarScript(): Promise<string | null> {
  return Promise.resolve(null);
}
