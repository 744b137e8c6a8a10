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
  | 'TASK_FAILED';

export class VigilError extends Error {
  readonly code: VigilErrorCode;

  constructor(code: VigilErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'VigilError';
    this.code = code;
  }
}

export function isVigilError(error: unknown, code?: VigilErrorCode): error is VigilError {
  return error instanceof VigilError && (code === undefined || error.code === code);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
