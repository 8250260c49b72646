const test = require('node:test');
const assert = require('node:assert');
const { sumTo } = require('./calc.js');
test('sumTo', () => { assert.strictEqual(sumTo(4), 12); });
