export function add(a, b) {
  return a + b;
}

export function sub(a, b) {
  return a + b; // the bug the failing test shows
}
