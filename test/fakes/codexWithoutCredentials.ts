// Codex with no credentials at all, against the local endpoint: Codex asks for a sign-in only for its
// built-in OpenAI provider (a custom provider is taken to need none), so that provider is pointed at
// the endpoint through `openai_base_url`, and no key variable is set (Codex counts even an empty one).

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { testModel, type RealAgentRecipe } from '../harness/realAgents';

export async function codexWithoutCredentials(recipe: RealAgentRecipe, origin: string): Promise<{ command: string; args: string[]; env: Record<string, string> }> {
  const codexHome = recipe.agent.env.CODEX_HOME;
  const config = [`model = "${testModel}"`, `openai_base_url = "${origin}/v1"`, 'approval_policy = "never"', 'sandbox_mode = "danger-full-access"', 'check_for_update_on_startup = false', '[analytics]', 'enabled = false', ''];
  await fs.writeFile(path.join(codexHome, 'config.toml'), config.join('\n'));
  const { CODEX_API_KEY: _codex, OPENAI_API_KEY: _openai, VIGIL_TEST_MODEL_KEY: _key, ...env } = recipe.agent.env;
  return { command: recipe.agent.command, args: recipe.agent.args, env };
}
