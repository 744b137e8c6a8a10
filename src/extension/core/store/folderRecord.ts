// What a session may record as its folder, pure: an absolute, normalised path (the folder rules of
// folders/sessionFolder.ts read it; the store refuses anything else when a session is made).

import * as path from 'node:path';

/** Longest recorded folder path accepted (Linux PATH_MAX); longer is damage, not a folder. */
export const MAX_FOLDER_PATH = 4096;

/** Why a recorded folder value is unacceptable, or undefined when it is a well-formed absolute path. */
export function folderRecordProblem(value: string, platform: NodeJS.Platform = process.platform): string | undefined {
  const p = pathFor(platform);
  if (value.length === 0) return 'it is empty or not text';
  if (value.length > MAX_FOLDER_PATH) return `it is ${value.length} characters long`;
  // No file system allows NUL in a name; other odd characters are legal in folder names and stay allowed.
  if (value.includes('\0')) return 'it contains a NUL character';
  if (!p.isAbsolute(value)) return 'it is not an absolute path';
  if (trimSeparators(p.normalize(value), p) !== value) return 'it is not a normalised path (it has "..", "." or repeated separators)';
  return undefined;
}

export function pathFor(platform: NodeJS.Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

export function trimSeparators(value: string, p: path.PlatformPath): string {
  // The root keeps its separator ("/", "C:\\"); anything longer loses a trailing one.
  const root = p.parse(value).root;
  let out = value;
  while (out.length > root.length && (out.endsWith(p.sep) || out.endsWith('/'))) out = out.slice(0, -1);
  return out;
}
