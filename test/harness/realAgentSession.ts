// A real third-party agent in the real workbench: the local model endpoint it answers from, its recipe (the
// `vigil.agent` setting, offline), a workbench whose new session runs it and is idle, and one close for all three.

import { openE2eSession, type E2eOptions, type E2eSession } from './e2eSession';
import { realAgentRecipe, requireAgentsInstalled, testApiKey, type RealAgentName, type RealAgentRecipe } from './realAgents';
import { SessionView } from './sessionView';
import { ModelEndpoint } from '../fakes/modelEndpoints/modelEndpoint';

export interface RealAgentSession {
  endpoint: ModelEndpoint;
  recipe: RealAgentRecipe;
  session: E2eSession;
  view: SessionView;
  close(): Promise<void>;
}

/** Opens it; `options.settings` add to the agent's and `allowAll` approvals. What was started is closed if a step fails. */
export async function openRealAgentSession(agent: RealAgentName, options: Omit<E2eOptions, 'settings'> & { settings?: Record<string, unknown> }): Promise<RealAgentSession> {
  requireAgentsInstalled();
  const endpoint = await ModelEndpoint.start({ apiKey: testApiKey });
  let recipe: RealAgentRecipe | undefined;
  let session: E2eSession | undefined;
  const close = async () => {
    await session?.close();
    await recipe?.dispose();
    await endpoint.close();
  };
  try {
    recipe = await realAgentRecipe(agent, { origin: endpoint.origin });
    session = await openE2eSession({ ...options, settings: { 'vigil.agent': recipe.agent, 'vigil.approvals.policy': 'allowAll', ...options.settings } });
    const view = new SessionView(session.workbench);
    await session.workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    await view.waitAgent(recipe.agent.command);
    await view.waitPhase('idle');
    return { endpoint, recipe, session, view, close };
  } catch (error) {
    await close();
    throw error;
  }
}
