// One stored file's text for the diff editor, in bounded memory: its size is asked first, so a file larger than the
// bound is never read into the host, and binary content is said to be binary instead of shown.

import { VigilError } from '../common/errors';
import { isObjectId, type CheckpointStore } from './checkpointStore';
import { blobSizes } from './restoreBlobs';

export type StoredText = { kind: 'text'; text: string } | { kind: 'binary'; bytes: number } | { kind: 'tooLarge'; bytes: number };

/** Like git: a NUL byte among the first 8,000 makes a file binary. */
const sniffBytes = 8_000;

export async function readStoredText(store: CheckpointStore, id: string, maxBytes: number): Promise<StoredText> {
  if (!isObjectId(id)) throw new VigilError('INVALID_INPUT', 'Not an object id');
  const bytes = (await blobSizes(store, [id])).get(id);
  if (bytes === undefined) throw new VigilError('NOT_FOUND', 'This file is no longer in the checkpoint store: older checkpoints are dropped to keep the store under its size bound.');
  if (bytes > maxBytes) return { kind: 'tooLarge', bytes };
  const content = (await store.git.run(['cat-file', 'blob', id])).stdout;
  if (content.subarray(0, sniffBytes).includes(0)) return { kind: 'binary', bytes };
  return { kind: 'text', text: content.toString('utf8') };
}
