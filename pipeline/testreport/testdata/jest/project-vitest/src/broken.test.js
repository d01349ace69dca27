import { missing } from './nowhere.js';
import { test, expect } from 'vitest';
test('never runs', () => expect(missing).toBe(1));
