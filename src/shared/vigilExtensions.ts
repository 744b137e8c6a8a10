// Which of Vigil's ACP extensions (`_vigil/*` methods, `_meta.vigil` fields) each side serves, as both sides advertise
// them in `initialize`: the client in `clientCapabilities._meta.vigil`, the agent in the response's `_meta.vigil`.
// Neither side may call an extension the other did not advertise: a plain ACP client answers "Method not found".

import * as z from 'zod';

/** `_meta.vigil` in either direction of `initialize`: extension method names and feature flags, both bounded. */
export const vigilExtensionsMeta = z.object({
  methods: z.array(z.string().max(100)).max(64).default([]),
  features: z.array(z.string().max(100)).max(64).default([]),
});
export type VigilExtensions = z.infer<typeof vigilExtensionsMeta>;

/** Features the built-in agent understands (named in its `initialize` answer). */
export const agentFeatures = {
  /** `session/new|load` `_meta.vigil.history`: the host hands over the transcript. */
  sessionHistory: 'session.history',
  /** `terminal/create` `_meta.vigil.background`: commands that outlive the turn and wake the session. */
  backgroundTerminals: 'terminal.background',
  /** Prompt errors carry `data.vigil.code` for provider failures. */
  promptErrorCodes: 'prompt.errorCodes',
} as const;

/** Features Vigil's client offers (named in `clientCapabilities._meta.vigil`). */
export const clientFeatures = {
  /** `terminal/create` `_meta.vigil.background`: the host keeps the command after the turn and wakes the session on exit. */
  backgroundTerminals: 'terminal.background',
} as const;

/** Whether `extensions` lists `name` as a method or a feature. */
export function offers(extensions: VigilExtensions, name: string): boolean {
  return extensions.methods.includes(name) || extensions.features.includes(name);
}

/** What the other side advertised under `_meta.vigil`, or nothing at all (a plain ACP peer, or a malformed value). */
export function readVigilExtensions(meta: unknown): VigilExtensions {
  const vigil = (meta as { vigil?: unknown } | null | undefined)?.vigil;
  const parsed = vigilExtensionsMeta.safeParse(vigil ?? {});
  return parsed.success ? parsed.data : { methods: [], features: [] };
}
