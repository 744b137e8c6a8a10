// Per-session secrets of Vigil's task server: an HMAC of the session id under a key that lives only in this
// extension host's memory, so every session has its own secret, a restarted bridge of the same window still
// knows them, and a reload (a new key) invalidates them all. Compared in constant time; never logged.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export class SessionSecrets {
  private constructor(private readonly key: Buffer) {}

  static generate(): SessionSecrets {
    return new SessionSecrets(randomBytes(32));
  }

  secretFor(sessionId: string): string {
    return createHmac('sha256', this.key).update(`vigil-task-server\0${sessionId}`).digest('base64url');
  }

  /** True when `secret` is this session's; the comparison takes the same time whatever it holds. */
  verify(sessionId: string, secret: unknown): boolean {
    if (typeof secret !== 'string') return false;
    const expected = createHmac('sha256', this.key).update(this.secretFor(sessionId)).digest();
    const given = createHmac('sha256', this.key).update(secret).digest();
    return timingSafeEqual(expected, given);
  }
}
