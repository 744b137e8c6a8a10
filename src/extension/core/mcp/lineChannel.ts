// Newline-delimited JSON over a stream socket, bounded: a line longer than `maxLine` closes the channel.

import type { Socket } from 'node:net';

export function readLines(socket: Socket, maxLine: number, onLine: (line: string) => void, onOverflow: () => void): void {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim()) onLine(line);
      if (socket.destroyed) return;
      newline = buffered.indexOf('\n');
    }
    if (buffered.length > maxLine) {
      buffered = '';
      onOverflow();
    }
  });
}

export function writeLine(socket: Socket, message: unknown): void {
  if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(message)}\n`);
}
