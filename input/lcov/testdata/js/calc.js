function add(a, b) {
  return a + b;
}

function never() {
  const x = 1;
  return x;
}

function sumTo(n) {
  let t = 0;
  for (let i = 0; i < n; i++) {
    t = add(t, i);
  }
  const twice = (v) => {
    return v * 2;
  };
  return twice(t);
}

module.exports = { add, never, sumTo };
