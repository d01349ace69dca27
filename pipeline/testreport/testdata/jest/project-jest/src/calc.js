exports.add = (a, b) => a + b;
exports.div = (a, b) => { if (b === 0) throw new Error('divide by zero'); return a / b; };
