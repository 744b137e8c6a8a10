// Built-in ACP agent process entry: reads its configuration from the environment and serves ACP on stdio.
// Logs go to stderr only; stdout is the protocol stream.

import { Readable, Writable } from 'node:stream';
import { format } from 'node:util';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { createAgentApp } from './acpAgent';
import { readConfig } from './config';
import { log } from './log';

/** stdout carries the protocol: a dependency that logs with console.log must not corrupt it. */
function keepStdoutForProtocol(): void {
  const toStderr = (...args: unknown[]) => void process.stderr.write(`${format(...args)}\n`);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

function main(): void {
  keepStdoutForProtocol();
  const config = readConfig(process.env, (m) => log('warn', m));
  log('info', `starting (pid ${process.pid}, provider ${config.provider}${config.model ? `, model ${config.model}` : ''})`);
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>,
  );
  const connection = createAgentApp(config).connect(stream);
  void connection.closed.then(() => {
    log('info', 'the client closed the connection; exiting');
    process.exit(0);
  });
  process.on('unhandledRejection', (reason) => log('error', `unhandled rejection: ${reason instanceof Error ? reason.stack : String(reason)}`));
}

main();
