// A deliberately slow build, so that it makes sense to run it in the background.
const fs = require('fs');
const path = require('path');
const { greet } = require('./src/greet');

const steps = ['compiling', 'linking', 'packaging'];
let i = 0;
const timer = setInterval(() => {
  console.log(`[build] ${steps[i]}…`);
  i += 1;
  if (i === steps.length) {
    clearInterval(timer);
    fs.mkdirSync(path.join(__dirname, 'dist'), { recursive: true });
    fs.writeFileSync(path.join(__dirname, 'dist', 'greeting.txt'), greet('world') + '\n');
    console.log('[build] done: dist/greeting.txt');
  }
}, 700);
