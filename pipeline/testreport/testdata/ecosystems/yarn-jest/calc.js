function add(a, b) {
  return a + b;
}

function sub(a, b) {
  return a + b; // the bug the failing test shows
}

module.exports = { add, sub };
