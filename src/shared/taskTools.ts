// Vigil's background-task tools as the agent sees them over MCP: names, descriptions and bounded input
// schemas. One definition for the stdio program (src/taskServer) and the HTTP server in the extension host.

import * as z from 'zod';

export const TASK_SERVER_NAME = 'vigil-tasks';

/** Bounds on what an agent may hand us; the extension host validates again with the same schemas. */
export const taskToolLimits = {
  commandChars: 8_000,
  cwdChars: 4_096,
  patternChars: 500,
  maxTimeoutSeconds: 7 * 24 * 3600,
  defaultTailBytes: 8_000,
  maxTailBytes: 256 * 1024,
} as const;

const taskId = z.string().regex(/^t-[0-9a-f]{8}$/, 'a task id looks like t-1a2b3c4d (from start_background_command or list_background)');

export const startInput = {
  command: z.string().min(1).max(taskToolLimits.commandChars).describe('The shell command line to run, e.g. "npm test" or "make build 2>&1".'),
  cwd: z.string().min(1).max(taskToolLimits.cwdChars).optional().describe('Folder to run in: absolute, or relative to the workspace folder (the default). A folder outside the workspace needs the person\'s approval.'),
  notify_on_exit: z.boolean().optional().describe('Wake you with the result when the command exits (default true).'),
  notify_pattern: z.string().min(1).max(taskToolLimits.patternChars).optional().describe('A regular expression; the first output line matching it wakes you while the command keeps running (e.g. "listening on :\\\\d+").'),
  timeout_seconds: z.number().int().min(1).max(taskToolLimits.maxTimeoutSeconds).optional().describe('Kill the command (its whole process tree) after this many seconds.'),
};
export const idInput = { id: taskId.describe('The task id returned by start_background_command.') };
export const outputInput = {
  ...idInput,
  tail_bytes: z.number().int().min(1).max(taskToolLimits.maxTailBytes).optional().describe(`How much of the end of the output to return (default ${taskToolLimits.defaultTailBytes} bytes).`),
};

export const startSchema = z.strictObject(startInput);
export const idSchema = z.strictObject(idInput);
export const outputSchema = z.strictObject(outputInput);
export const listSchema = z.strictObject({});

export type StartParams = z.infer<typeof startSchema>;
export type OutputParams = z.infer<typeof outputSchema>;

export const taskTools = {
  start_background_command: {
    title: 'Start a background command',
    description:
      'Runs a shell command in the background, owned by the editor (Vigil), and returns its task id at once. ' +
      'The command runs in the editor, not in your process: it keeps running if you stop or crash and across window reloads, and it can be watched and killed by the person. ' +
      'You will be woken with its result (exit status and the end of its output) when it finishes; end your turn instead of waiting, polling or sleeping. ' +
      'Use it for builds, test suites, servers and anything that takes more than a few seconds. The command goes through the person\'s approval policy.',
    schema: startSchema,
    input: startInput,
  },
  background_status: {
    title: 'Status of a background command',
    description: 'Whether a background command started with start_background_command is running, exited (with its exit code), killed or lost, and when it started and ended.',
    schema: idSchema,
    input: idInput,
  },
  background_output: {
    title: 'Output of a background command',
    description: 'The end of a background command\'s output so far (stdout and stderr together). You do not need this to learn that it finished: you will be woken.',
    schema: outputSchema,
    input: outputInput,
  },
  kill_background: {
    title: 'Kill a background command',
    description: 'Kills a background command and every process it started (also those that left its session), and says how many it stopped and any it could not. You will be woken once with its end, as for any exit, if it asked for notify_on_exit.',
    schema: idSchema,
    input: idInput,
  },
  list_background: {
    title: 'List background commands',
    description: 'Lists this session\'s background commands with their ids, status and commands.',
    schema: listSchema,
    input: {},
  },
} as const;

export type TaskToolName = keyof typeof taskTools;
export const TASK_TOOL_NAMES = Object.keys(taskTools) as TaskToolName[];

export function isTaskToolName(name: unknown): name is TaskToolName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(taskTools, name);
}

/** What a tool call returns: text for the model; `isError` marks a refusal or failure it should read. */
export interface TaskToolResult {
  text: string;
  isError?: boolean;
}

/** The MCP server surface (the SDK's McpServer satisfies it); kept structural so this module needs no SDK import. */
export interface ToolRegistrar {
  registerTool(
    name: string,
    config: { title?: string; description?: string; inputSchema?: z.ZodType; annotations?: Record<string, unknown> },
    cb: (args: unknown, extra: { signal: AbortSignal }) => Promise<{ content: Array<{ type: 'text'; text: string }>; isError?: boolean }>,
  ): unknown;
}

/** Registers the five tools on an MCP server; `call` serves them (over the bridge, or directly in the extension host). */
export function registerTaskTools(server: ToolRegistrar, call: (tool: TaskToolName, args: unknown, signal: AbortSignal) => Promise<TaskToolResult>): void {
  for (const name of TASK_TOOL_NAMES) {
    const tool = taskTools[name];
    server.registerTool(
      name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.schema,
        annotations: { readOnlyHint: name === 'background_status' || name === 'background_output' || name === 'list_background', openWorldHint: false },
      },
      async (args, extra) => {
        const result = await call(name, args, extra.signal);
        return { content: [{ type: 'text', text: result.text }], ...(result.isError ? { isError: true } : {}) };
      },
    );
  }
}
