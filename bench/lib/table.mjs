export function renderTable(results) {
  return JSON.stringify(results.sections, (k, v) => (k === 'samples' ? undefined : v), 2);
}
