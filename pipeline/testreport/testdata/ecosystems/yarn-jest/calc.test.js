const { add, sub } = require('./calc');

describe('calc', () => {
  test('adds', () => {
    expect(add(2, 3)).toBe(5);
  });

  test('subtracts', () => {
    expect(sub(5, 3)).toBe(2);
  });
});
