export function targets() {
  return [];
}
