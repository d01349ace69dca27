const { missing } = require('./nowhere');
test('never runs', () => expect(missing).toBe(1));
