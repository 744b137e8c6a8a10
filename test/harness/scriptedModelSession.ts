// A workbench whose built-in agent talks to a local scripted OpenAI-compatible endpoint, with a new session open
// once the header names that model (code-server may hand the extension host the user settings a moment late).

import { openE2eSession, type E2eSession } from './e2eSession';
import { SessionView } from './sessionView';
import { ModelEndpoint } from '../fakes/modelEndpoints/modelEndpoint';

export interface ScriptedModelSession {
  session: E2eSession;
  endpoint: ModelEndpoint;
  view: SessionView;
  close(): Promise<void>;
}

export interface ScriptedModelOptions {
  /** What the endpoint's `GET /v1/models` lists. */
  models?: ReadonlyArray<Record<string, unknown>>;
  /** Adds to the copied sample workspace before the server starts. */
  prepareWorkspace?(workspace: string): void;
}

export async function openScriptedModelSession(name: string, settings: Record<string, unknown> = {}, options: ScriptedModelOptions = {}): Promise<ScriptedModelSession> {
  const endpoint = await ModelEndpoint.start({ models: options.models });
  let session: E2eSession | undefined;
  try {
    session = await openE2eSession({
      name,
      prepareWorkspace: options.prepareWorkspace,
      settings: { 'vigil.model.provider': 'openai-compatible', 'vigil.model.baseUrl': `${endpoint.origin}/v1`, 'vigil.model.name': 'scripted-model', ...settings },
    });
    const view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    // The session's model (`openai-compatible: scripted-model`), or the agent's model option once it said it.
    await view.waitModelChip('scripted-model');
    const opened = session;
    return {
      session: opened,
      endpoint,
      view,
      async close() {
        await opened.close();
        await endpoint.close();
      },
    };
  } catch (error) {
    await session?.close();
    await endpoint.close();
    throw error;
  }
}

/**
 * One scripted-model workbench for the enclosing `describe`: opened before its tests, closed after them.
 * `current` is the open one (a test reading it outside the suite's lifetime is a bug in the test).
 */
export function scriptedModelSessionForSuite(name: string, settings: Record<string, unknown> = {}, options: ScriptedModelOptions = {}): { readonly current: ScriptedModelSession } {
  let opened: ScriptedModelSession | undefined;
  before(async function () {
    opened = await openScriptedModelSession(name, settings, options);
  });
  after(async function () {
    await opened?.close();
  });
  return {
    get current() {
      if (!opened) throw new Error(`the "${name}" workbench is not open`);
      return opened;
    },
  };
}
