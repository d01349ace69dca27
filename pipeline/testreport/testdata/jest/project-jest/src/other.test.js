test('top level', () => expect(true).toBe(true));
