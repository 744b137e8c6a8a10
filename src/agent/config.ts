// The built-in agent's configuration, handed over by the extension host at spawn through the environment.

import * as z from 'zod';
import { agentConfigSchema as configSchema, apiKeyEnvVar, configEnvVar, demoHoldEnvVar, demoScriptEnvVar } from '../shared/agentProtocol/agentConfig';

export { apiKeyEnvVar, configEnvVar, demoHoldEnvVar, demoScriptEnvVar, providerKinds, type ProviderKind } from '../shared/agentProtocol/agentConfig';

export type AgentConfig = z.infer<typeof configSchema> & { apiKey?: string; demoHoldFile?: string };

/** Reads the configuration; an invalid value is reported on stderr and replaced by its default, never fatal. */
export function readConfig(env: NodeJS.ProcessEnv, warn: (message: string) => void): AgentConfig {
  let raw: unknown = {};
  const text = env[configEnvVar];
  if (text) {
    try {
      raw = JSON.parse(text);
    } catch (error) {
      warn(`${configEnvVar} is not valid JSON (${(error as Error).message}); using defaults`);
    }
  }
  const parsed = configSchema.safeParse(raw);
  let config: z.infer<typeof configSchema>;
  if (parsed.success) {
    config = parsed.data;
  } else {
    warn(`invalid agent configuration (${parsed.error.issues.map((i) => i.path.join('.')).join(', ')}); using defaults`);
    config = configSchema.parse({});
  }
  const apiKey = env[apiKeyEnvVar] || undefined;
  const scriptPath = env[demoScriptEnvVar] || config.scriptPath;
  const demoHoldFile = env[demoHoldEnvVar] || undefined;
  return { ...config, scriptPath, apiKey, ...(demoHoldFile ? { demoHoldFile } : {}) };
}
