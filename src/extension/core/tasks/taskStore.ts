// Where a task's files live under `<storageRoot>/tasks/`, and the durable record's load and save.

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { jsonText, readJson, writeFileAtomic } from '../store/atomicFile';
import type { Logger } from '../ports/logger';
import type { Redactor } from '../common/redactor';
import { OUTPUT_BYTE_LIMIT_MAX } from './outputLimit';
import { taskRecordSchema, type TaskRecord } from './taskTypes';

export interface TaskPaths {
  record: string;
  log: string;
  exit: string;
  /** The exit record's text, written by the wrapper before its fsyncs (not durable): see TaskRun.runCheck. */
  notice: string;
}

export function tasksDir(storageRoot: string): string {
  return path.join(storageRoot, 'tasks');
}

export function taskPaths(storageRoot: string, taskId: string): TaskPaths {
  const dir = tasksDir(storageRoot);
  const exit = path.join(dir, `${taskId}.exit`);
  return { record: path.join(dir, `${taskId}.json`), log: path.join(dir, `${taskId}.log`), exit, notice: `${exit}.notice` };
}

/** Saves records of one task in call order, so a slow older write never lands over a newer one. */
export class RecordWriter {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly file: string,
    /** Secrets to keep out of the record (a command line may carry a token). */
    private readonly redactor?: Redactor,
  ) {}

  /** Atomic always; `durable: false` skips the fsyncs (see TaskRun.settle for where that is safe). */
  save(record: TaskRecord, options: { durable?: boolean } = {}): Promise<void> {
    const copy = { ...record, notify: { ...record.notify } };
    const snapshot = this.redactor?.redactValue(copy) ?? copy;
    const next = this.chain.then(() => writeFileAtomic(this.file, jsonText(snapshot), options));
    this.chain = next.catch(() => undefined);
    return next;
  }
}

/** Loads every task record; a corrupt one is set aside as `<id>.json.corrupt` and reported, never fatal. */
export async function loadTaskRecords(storageRoot: string, logger: Logger): Promise<TaskRecord[]> {
  const dir = tasksDir(storageRoot);
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const records: TaskRecord[] = [];
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const file = path.join(dir, name);
    try {
      const parsed = taskRecordSchema.safeParse(await readJson(file));
      if (parsed.success) {
        records.push(boundedLimit(parsed.data, file, logger));
        continue;
      }
      logger.warn(`task record ${file} has an unexpected shape; set aside`, parsed.error.message);
    } catch (error) {
      logger.warn(`task record ${file} is unreadable; set aside`, error);
    }
    await fs.rename(file, `${file}.corrupt`).catch((error: unknown) => logger.error(`could not set aside ${file}`, error));
  }
  return records.sort((a, b) => a.startedAt - b.startedAt);
}

/** A record written before the limit was clamped may ask for any buffer size: it gets the maximum. */
function boundedLimit(record: TaskRecord, file: string, logger: Logger): TaskRecord {
  if (record.outputByteLimit <= OUTPUT_BYTE_LIMIT_MAX) return record;
  logger.warn(`task record ${file} asks for an output buffer of ${record.outputByteLimit} bytes; using ${OUTPUT_BYTE_LIMIT_MAX}`);
  return { ...record, outputByteLimit: OUTPUT_BYTE_LIMIT_MAX };
}
