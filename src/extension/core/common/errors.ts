// Errors with a stable code and a cause, so callers can branch and logs can explain.

export type VigilErrorCode =
  | 'SESSION_BUSY'
  | 'LEASE_LOST'
  | 'STALE_EPOCH'
  | 'STORAGE_UNWRITABLE'
  | 'CORRUPT_RECORD'
  | 'NOT_FOUND'
  | 'INVALID_INPUT'
  | 'AGENT_FAILED'
  | 'AGENT_NOT_FOUND'
  | 'AGENT_TIMEOUT'
  | 'PROVIDER_AUTH'
  | 'PROVIDER_QUOTA'
  | 'PROVIDER_FAILED'
  | 'CANCELLED'
  | 'OUTSIDE_WORKSPACE'
  | 'PERMISSION_DENIED'
  | 'TASK_FAILED'
  | 'TASK_LIMIT';

export class VigilError extends Error {
  readonly code: VigilErrorCode;

  constructor(code: VigilErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'VigilError';
    this.code = code;
  }
}

/** Structural, not `instanceof`: the extension ships two bundles (entry and services) that each carry this class. */
export function isVigilError(error: unknown, code?: VigilErrorCode): error is VigilError {
  if (!(error instanceof Error) || error.name !== 'VigilError') return false;
  const actual = (error as { code?: unknown }).code;
  return typeof actual === 'string' && (code === undefined || actual === code);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
