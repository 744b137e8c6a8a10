// Returns a friendly greeting.
function greet(name) {
  return `Hello, ${name}!`;
}

module.exports = { greet };
