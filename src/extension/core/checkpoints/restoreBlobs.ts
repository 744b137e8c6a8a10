// The stored side of a restore, in bounded memory: blob sizes from the store (so a file on disk is compared by size
// before any byte of it is read), a file's git blob id hashed in fixed-size chunks, and stored blobs read a bounded
// number of bytes at a time.

import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { VigilError } from '../common/errors';
import type { CheckpointStore } from './checkpointStore';

/** Reads into `buffer` (all of it at most) from `position`; returns the bytes read. Tests inject one that checks requests. */
export type ChunkRead = (handle: FileHandle, buffer: Buffer, position: number) => Promise<number>;

/** The most a comparison asks of a file at once. */
export const hashChunkBytes = 256 * 1024;

/** The most stored bytes one restore step holds in memory (one blob larger than this is read alone). */
export const blobBatchBytes = 32 * 1024 * 1024;

export const readChunk: ChunkRead = async (handle, buffer, position) => (await handle.read(buffer, 0, buffer.length, position)).bytesRead;

/** Git's object id of a blob (SHA-1 repositories: the store is created with git's default). */
export function blobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/**
 * The blob id of an open file of `size` bytes (its size when opened), read `hashChunkBytes` at a time; undefined
 * when it turns out shorter (it changed while being read).
 */
export async function fileBlobId(handle: FileHandle, size: number, read: ChunkRead = readChunk): Promise<string | undefined> {
  const hash = createHash('sha1').update(`blob ${size}\0`);
  const buffer = Buffer.allocUnsafe(Math.min(hashChunkBytes, Math.max(size, 1)));
  let done = 0;
  while (done < size) {
    const got = await read(handle, buffer.subarray(0, Math.min(buffer.length, size - done)), done);
    if (got <= 0) return undefined;
    hash.update(buffer.subarray(0, got));
    done += got;
  }
  return hash.digest('hex');
}

/** The size of each stored blob of `ids` (one git call); an id the store does not hold is left out. */
export async function blobSizes(store: CheckpointStore, ids: Iterable<string>): Promise<Map<string, number>> {
  const unique = [...new Set(ids)];
  const sizes = new Map<string, number>();
  if (unique.length === 0) return sizes;
  const out = (await store.git.run(['cat-file', '--batch-check'], { input: unique.map((id) => `${id}\n`).join('') })).stdout;
  for (const line of out.toString('utf8').split('\n')) {
    const m = /^([0-9a-f]+) blob (\d+)$/.exec(line);
    if (m) sizes.set(m[1]!, Number(m[2]));
  }
  return sizes;
}

/** Splits `items` into runs whose stored bytes stay under `blobBatchBytes` (one larger item is a run of its own). */
export function byStoredBytes<T>(items: T[], bytesOf: (item: T) => number, bound = blobBatchBytes): T[][] {
  const runs: T[][] = [];
  let run: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = bytesOf(item);
    if (run.length > 0 && bytes + size > bound) {
      runs.push(run);
      [run, bytes] = [[], 0];
    }
    run.push(item);
    bytes += size;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** The stored bytes of each blob of `ids`, in one git call. */
export async function readBlobs(store: CheckpointStore, ids: string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(ids)];
  const map = new Map<string, Buffer>();
  if (unique.length === 0) return map;
  const out = (await store.git.run(['cat-file', '--batch'], { input: unique.map((id) => `${id}\n`).join('') })).stdout;
  let offset = 0;
  for (const id of unique) {
    const newline = out.indexOf(0x0a, offset);
    const header = out.subarray(offset, newline).toString('utf8');
    const m = /^([0-9a-f]+) blob (\d+)$/.exec(header);
    if (!m || m[1] !== id) throw new VigilError('CORRUPT_RECORD', `The checkpoint store could not give back object ${id}: ${header.slice(0, 200)}`);
    const size = Number(m[2]);
    map.set(id, out.subarray(newline + 1, newline + 1 + size));
    offset = newline + 1 + size + 1;
  }
  return map;
}
