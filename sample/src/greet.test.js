const assert = require('assert');
const { greet } = require('./greet');

assert.strictEqual(greet('Vigil'), 'Hello, Vigil!');
console.log('1 passed, 0 failed');
