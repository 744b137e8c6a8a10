// What the agent may ask of the host beyond ACP's own client methods: `_vigil/…` requests and the LM chunk stream.

import type { LmChunkParams } from '../shared/agentProtocol/vigilMethods';

export interface HostChannel {
  request<T>(method: string, params: unknown, signal?: AbortSignal): Promise<T>;
  /** Subscribes to the `_vigil/lm/chunk` events of one stream; returns the unsubscribe. */
  onLmChunk(streamId: string, listener: (event: LmChunkParams['event']) => void): () => void;
  /** Whether the client advertised this `_vigil/…` method in `initialize` (a plain ACP client serves none). */
  serves(method: string): boolean;
}
