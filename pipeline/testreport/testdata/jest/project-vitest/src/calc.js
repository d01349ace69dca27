export const add = (a, b) => a + b;
export const div = (a, b) => { if (b === 0) throw new Error('divide by zero'); return a / b; };
