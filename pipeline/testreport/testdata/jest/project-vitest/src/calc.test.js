import { describe, test, expect } from 'vitest';
import { add, div } from './calc.js';

describe('calc', () => {
  test('adds', () => expect(add(1, 2)).toBe(3));
  test('adds wrongly', () => expect(add(2, 2)).toBe(5));
  describe('div', () => {
    test.each([[4, 2, 2], [9, 3, 3]])('div(%i, %i) = %i', (a, b, want) => expect(div(a, b)).toBe(want));
    test('throws on zero', () => expect(() => div(1, 0)).toThrow('divide by zero'));
  });
  test.skip('skipped', () => {});
  test.todo('todo');
});
