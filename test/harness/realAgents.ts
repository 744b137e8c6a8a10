// Launch recipes for the real ACP agents installed by scripts/installAgents.mjs: the `vigil.agent` value
// that runs each one offline against a local model endpoint, with its own temp HOME and configuration.

import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export type RealAgentName = 'claude' | 'codex' | 'gemini' | 'copilot' | 'opencode';
export const realAgentNames: readonly RealAgentName[] = ['claude', 'codex', 'gemini', 'copilot', 'opencode'];

/** The key the recipes hand the agents; start the endpoint with `{ apiKey: testApiKey }` to have it checked. */
export const testApiKey = 'vigil-test-key-0123456789';
/** The model name every recipe asks for; the endpoint answers whatever model is named. */
export const testModel = 'vigil-test-model';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
export const agentsDir = path.join(repoRoot, '.vscode-test', 'agents');
const bin = (name: string) => path.join(agentsDir, 'node_modules', '.bin', name);
/**
 * The native binary that an npm launcher script would start with spawnSync: started directly, signals
 * reach the agent itself and no orphan outlives a killed launcher.
 */
const native = (scope: string, name: string, file: string) => path.join(agentsDir, 'node_modules', scope, `${name}-${process.platform}-${process.arch}`, file);

/** A shell command / file read expressed as this agent's own tool call (names and argument shapes differ). */
export interface AgentTools {
  shell(command: string): { name: string; args: Record<string, unknown> };
  read(absolutePath: string): { name: string; args: Record<string, unknown> };
}

export interface RealAgentRecipe {
  name: RealAgentName;
  /** Exactly what goes into the `vigil.agent` setting. */
  agent: { command: string; args: string[]; env: Record<string, string> };
  /** The agent's own temp HOME (its config, logs and session files); removed by `dispose`. */
  home: string;
  tools: AgentTools;
  dispose(): Promise<void>;
}

export interface RecipeOptions {
  /** The local model endpoint's origin, `http://127.0.0.1:PORT`. */
  origin: string;
  /**
   * `valid` (default) hands the agent `testApiKey`; `missing` configures no key at all, so the agent
   * itself demands sign-in (Codex: `requires_openai_auth = true`); `wrong` hands a key the endpoint refuses.
   */
  credential?: 'valid' | 'missing' | 'wrong';
  /** The workspace the agent will work in, for agents that must be told to trust it. */
  workspace?: string;
}

/** Fails with what to do when the agents are not installed; a missing agent is a failure, never a skip. */
export function requireAgentsInstalled(): void {
  const missing = [...['claude-agent-acp', 'gemini', 'opencode'].map(bin), codexBinary(), copilotBinary()].filter((b) => !existsSync(b)).map((b) => path.relative(agentsDir, b));
  if (missing.length > 0) throw new Error(`The real ACP agents are not installed in ${agentsDir} (missing: ${missing.join(', ')}): run node scripts/installAgents.mjs`);
}

const codexBinary = () => native('@zed-industries', 'codex-acp', 'bin/codex-acp');
const copilotBinary = () => native('@github', 'copilot', 'copilot');

export async function realAgentRecipe(name: RealAgentName, o: RecipeOptions): Promise<RealAgentRecipe> {
  requireAgentsInstalled();
  const home = await fs.mkdtemp(path.join(os.tmpdir(), `vigil-${name}-home-`));
  const credential = o.credential ?? 'valid';
  const key = credential === 'valid' ? testApiKey : credential === 'wrong' ? 'wrong-key-refused-by-the-endpoint' : '';
  // Everything an agent writes goes under its own HOME; PATH starts with this Node (the agents' shebangs use `env node`).
  const env: Record<string, string> = {
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    PATH: [path.dirname(process.execPath), process.env.PATH ?? '/usr/bin:/bin'].join(path.delimiter),
    NO_COLOR: '1',
    // Keys a developer's own environment may carry must not reach the agent under test.
    ANTHROPIC_API_KEY: '',
    ANTHROPIC_AUTH_TOKEN: '',
    OPENAI_API_KEY: '',
    CODEX_API_KEY: '',
    GEMINI_API_KEY: '',
    GOOGLE_API_KEY: '',
    GITHUB_TOKEN: '',
    GH_TOKEN: '',
    COPILOT_GITHUB_TOKEN: '',
  };
  // Without a credential, the sign-in variables are left out rather than blanked: signing in through an
  // `env_var` auth method hands the agent its key in exactly these variables at its next start.
  if (credential === 'missing') for (const k of signInVariables[name]) delete env[k];
  const made = await recipes[name]({ ...o, credential }, home, key, env);
  return {
    name,
    ...made,
    home,
    dispose: () => fs.rm(home, { recursive: true, force: true, maxRetries: 3 }),
  };
}

/** The variables each agent's own `env_var` auth methods (or its docs) name for its key. */
const signInVariables: Record<RealAgentName, string[]> = {
  claude: ['ANTHROPIC_API_KEY'],
  codex: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
  gemini: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
  copilot: ['GITHUB_TOKEN', 'GH_TOKEN', 'COPILOT_GITHUB_TOKEN'],
  opencode: [],
};

type Made = Pick<RealAgentRecipe, 'agent' | 'tools'>;
type Maker = (o: RecipeOptions & { credential: 'valid' | 'missing' | 'wrong' }, home: string, key: string, env: Record<string, string>) => Promise<Made>;

const write = async (file: string, text: string) => {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text);
};

const recipes: Record<RealAgentName, Maker> = {
  async claude(o, home, key, env) {
    // "default" mode: Claude asks before commands and edits (as a person's fresh install does), instead of
    // "auto", whose permission classifier talks to the vendor and says so in the chat when it cannot.
    await write(path.join(home, '.claude', 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'default' } }, null, 2));
    return {
      agent: {
        command: bin('claude-agent-acp'),
        args: [],
        env: {
          ...env,
          ANTHROPIC_BASE_URL: o.origin,
          ...(key ? { ANTHROPIC_API_KEY: key } : {}),
          ANTHROPIC_MODEL: testModel,
          ANTHROPIC_SMALL_FAST_MODEL: testModel,
          CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
          // Claude Code refuses to skip permission prompts as root unless told it runs in a sandbox.
          ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}),
          DISABLE_AUTOUPDATER: '1',
          DISABLE_TELEMETRY: '1',
          DISABLE_ERROR_REPORTING: '1',
          DISABLE_BUG_COMMAND: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          // Claude Code has its own stream watchdogs that drop a silent stream and retry; off, so that a
          // hung model stream stays hung and it is Vigil's watchdog that a test sees acting.
          // After each turn Claude Code asks the model to guess the person's next message; not a turn of ours.
          CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION: 'false',
          CLAUDE_ENABLE_STREAM_WATCHDOG: '0',
          CLAUDE_ENABLE_BYTE_WATCHDOG: '0',
          CLAUDE_STREAM_IDLE_TIMEOUT_MS: '1800000',
          CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS: '1800000',
          CLAUDE_STREAM_FIRST_BYTE_TIMEOUT_MS: '1800000',
        },
      },
      tools: {
        shell: (command) => ({ name: 'Bash', args: { command, description: 'Run a command' } }),
        read: (file) => ({ name: 'Read', args: { file_path: file } }),
      },
    };
  },

  async codex(o, home, key, env) {
    const codexHome = path.join(home, '.codex');
    // With a key: a provider of our own that needs no OpenAI sign-in. Without: Codex's built-in OpenAI
    // provider pointed at the endpoint, so Codex demands sign-in (its `authMethods`) as a fresh install does.
    const provider = o.credential === 'missing'
      ? [`openai_base_url = "${o.origin}/v1"`]
      : ['model_provider = "vigiltest"'];
    const providerTable = o.credential === 'missing'
      ? []
      : ['[model_providers.vigiltest]', 'name = "Local test endpoint"', `base_url = "${o.origin}/v1"`, 'wire_api = "responses"', 'requires_openai_auth = false', 'env_key = "VIGIL_TEST_MODEL_KEY"', ''];
    await write(
      path.join(codexHome, 'config.toml'),
      [
        `model = "${testModel}"`,
        ...provider,
        // No prompt for commands, and no sandbox: Codex's own sandbox needs bubblewrap, absent here.
        'approval_policy = "never"',
        'sandbox_mode = "danger-full-access"',
        'check_for_update_on_startup = false',
        '',
        ...providerTable,
        '[analytics]',
        'enabled = false',
        '',
      ].join('\n'),
    );
    return {
      agent: { command: codexBinary(), args: [], env: { ...env, CODEX_HOME: codexHome, ...(o.credential === 'missing' ? {} : { VIGIL_TEST_MODEL_KEY: key }) } },
      tools: {
        // Codex has no file-read tool: it reads files with commands.
        shell: (command) => ({ name: 'exec_command', args: { cmd: command } }),
        read: (file) => ({ name: 'exec_command', args: { cmd: `cat ${JSON.stringify(file)}` } }),
      },
    };
  },

  async gemini(o, home, key, env) {
    await write(
      path.join(home, '.gemini', 'settings.json'),
      JSON.stringify(
        {
          security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
          general: { disableAutoUpdate: true, disableUpdateNag: true },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          model: { name: testModel },
        },
        null,
        2,
      ),
    );
    return {
      agent: { command: bin('gemini'), args: ['--acp'], env: { ...env, GOOGLE_GEMINI_BASE_URL: o.origin, ...(key ? { GEMINI_API_KEY: key } : {}), GEMINI_MODEL: testModel } },
      tools: {
        shell: (command) => ({ name: 'run_shell_command', args: { command, description: 'Run a command' } }),
        read: (file) => ({ name: 'read_file', args: { file_path: file } }),
      },
    };
  },

  async copilot(o, home, key, env) {
    return {
      agent: {
        command: copilotBinary(),
        args: ['--acp'],
        env: {
          ...env,
          COPILOT_HOME: path.join(home, '.copilot'),
          // The binary unpacks its ~235 MB package on first start; one shared cache keeps later starts fast.
          COPILOT_PKG_CACHE_HOME: path.join(agentsDir, 'copilot-pkg-cache'),
          COPILOT_OFFLINE: 'true',
          COPILOT_AUTO_UPDATE: 'false',
          COPILOT_PROVIDER_BASE_URL: `${o.origin}/v1`,
          COPILOT_PROVIDER_TYPE: 'openai',
          COPILOT_PROVIDER_API_KEY: key,
          COPILOT_MODEL: testModel,
        },
      },
      tools: {
        shell: (command) => ({ name: 'bash', args: { command, description: 'Run a command' } }),
        read: (file) => ({ name: 'view', args: { path: file } }),
      },
    };
  },

  async opencode(o, home, key, env) {
    const config = path.join(home, 'opencode.json');
    await write(
      config,
      JSON.stringify(
        {
          $schema: 'https://opencode.ai/config.json',
          autoupdate: false,
          share: 'disabled',
          model: `vigiltest/${testModel}`,
          small_model: `vigiltest/${testModel}`,
          provider: {
            vigiltest: {
              npm: '@ai-sdk/openai-compatible',
              name: 'Local test endpoint',
              options: { baseURL: `${o.origin}/v1`, apiKey: key },
              models: { [testModel]: { name: 'Test model', tool_call: true } },
            },
          },
        },
        null,
        2,
      ),
    );
    // OpenCode installs its config folder's packages from the npm registry on every start with a fresh home
    // (seen with strace: a DNS lookup and a connection to port 443). The tests run offline: the registry it is
    // given refuses at once on this machine, and the agent goes on without them.
    const offlineRegistry = { BUN_CONFIG_REGISTRY: 'http://127.0.0.1:9/', NPM_CONFIG_REGISTRY: 'http://127.0.0.1:9/' };
    return {
      agent: {
        command: bin('opencode'),
        args: ['acp'],
        env: { ...env, OPENCODE_CONFIG: config, OPENCODE_DISABLE_AUTOUPDATE: 'true', OPENCODE_DISABLE_MODELS_FETCH: 'true', OPENCODE_DISABLE_SHARE: 'true', OPENCODE_DISABLE_LSP_DOWNLOAD: 'true', OPENCODE_DISABLE_DEFAULT_PLUGINS: 'true', ...offlineRegistry },
      },
      tools: {
        shell: (command) => ({ name: 'bash', args: { command } }),
        read: (file) => ({ name: 'read', args: { filePath: file } }),
      },
    };
  },
};
