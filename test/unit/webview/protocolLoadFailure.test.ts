// The webview protocol is loaded on the first message from a view (from dist/schemas.js in the extension's
// bundle). When it cannot be loaded, every message is refused with that reason, in the log and in the view,
// and nothing throws: a fresh channel module over a protocol module that fails as the bundle's stand-in does.

import * as assert from 'node:assert/strict';
import Module, { createRequire } from 'node:module';
import type * as ChannelModule from '../../../src/extension/presentation/sessionViewChannel';
import type { IntentHandlers } from '../../../src/extension/presentation/viewHandlers';
import { sideBarSurface } from '../../../src/extension/presentation/viewSurface';
import type { HostMessage } from '../../../src/shared/webviewProtocol';
import { emptySnapshot } from '../../../src/shared/sessionView';

const protocolPath = require.resolve('../../../src/shared/webviewProtocol');
const channelPath = require.resolve('../../../src/extension/presentation/sessionViewChannel');
const failure = new Error('Vigil could not load dist/schemas.js (Cannot find module \'./schemas.js\'); reinstall the extension.');

describe('session view channel without its protocol module', () => {
  const saved = { protocol: require.cache[protocolPath], channel: require.cache[channelPath] };
  let loads = 0;

  before(() => {
    // What the bundle's stand-in does: the first require throws, later ones get exports that throw on use.
    const stand = new Module(protocolPath);
    Object.defineProperty(stand, 'exports', {
      get() {
        loads += 1;
        if (loads === 1) throw failure;
        return new Proxy({}, { get() { throw failure; } });
      },
    });
    Object.assign(stand, { loaded: true, filename: protocolPath });
    require.cache[protocolPath] = stand;
    delete require.cache[channelPath];
  });

  after(() => {
    require.cache[protocolPath] = saved.protocol;
    require.cache[channelPath] = saved.channel;
  });

  it('refuses each message with the reason, in the log and in the view, without throwing', async () => {
    const { SessionViewChannel } = createRequire(__filename)(channelPath) as typeof ChannelModule;
    const posted: HostMessage[] = [];
    const logged: string[] = [];
    const rejected: string[] = [];
    const dispatched: string[] = [];
    const surface = sideBarSurface({ getSnapshot: () => emptySnapshot(), currentSessionId: undefined });
    const handlers = { prompt: () => void dispatched.push('prompt') } as unknown as IntentHandlers;
    const logger = { trace() {}, debug() {}, info() {}, warn() {}, error: (m: string | Error) => logged.push(String(m)) };
    const channel = new SessionViewChannel((m) => posted.push(m), surface, handlers, logger, { onRejected: (r) => rejected.push(r) });
    await channel.receive({ type: 'ready', id: 'w1' });
    await channel.receive({ type: 'prompt', id: 'w2', text: 'hello' });
    assert.ok(loads >= 2, 'the second message met the module that throws on use');
    assert.deepEqual(rejected, [failure.message, failure.message]);
    assert.deepEqual(posted, [{ type: 'error', message: failure.message }, { type: 'error', message: failure.message }]);
    assert.deepEqual(logged, [`webview message not handled: ${failure.message}`, `webview message not handled: ${failure.message}`]);
    assert.deepEqual(dispatched, []);
    assert.equal(channel.isReady, false);
  });
});
