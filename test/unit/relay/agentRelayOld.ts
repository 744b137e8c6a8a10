// A relay of another Vigil version, as far as a window can tell: it runs an agent (an idle Node process),
// writes its secret and state.json and listens on the session's relay socket like a relay, but either its
// state.json says another protocol version (`state`) or its welcome does (`welcome`). The file name holds
// "agentRelay", as the shipped relay's does, so the window counts it as a relay.
//
// Run: node agentRelayOld.js <dir> <socket> <state|welcome>

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { RELAY_PROTOCOL, relayFileNames } from '../../../src/extension/core/relay/relayProtocol';

const [dir, socket, mode] = process.argv.slice(2);
const older = RELAY_PROTOCOL - 1;
const secret = randomBytes(32).toString('hex');
fs.writeFileSync(path.join(dir, relayFileNames.secret), secret, { mode: 0o600 });
const agent = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1e9)'], { stdio: 'ignore' });
fs.rmSync(socket, { force: true });
net
  .createServer((client) => {
    client.on('error', () => undefined);
    client.once('data', () => {
      client.write(`${JSON.stringify({ t: 'welcome', v: older, agentPid: agent.pid, sessions: [], inflight: [], silentMs: 0 })}\n`);
    });
  })
  .listen(socket, () => {
    const state = { v: mode === 'state' ? older : RELAY_PROTOCOL, pid: process.pid, agentPid: agent.pid, socket, startedAt: Date.now() };
    fs.writeFileSync(path.join(dir, relayFileNames.state), JSON.stringify(state));
    process.stdout.write(`${JSON.stringify({ ready: true, agentPid: agent.pid })}\n`);
  });
