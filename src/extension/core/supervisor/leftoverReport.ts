// The turn's end asks the agent handle to stop what a stopped turn left running, logs it, and tells the view
// about anything that had to be killed after the grace (the turn has ended by then; its notice is already out).

import { errorMessage } from '../common/errors';
import type { AgentHandle } from '../ports/agentHandle';
import type { Logger } from '../ports/logger';
import type { LivenessSettings } from './livenessSettings';
import type { SupervisorEvent } from './supervisorEvents';

interface TurnContext {
  sessionId: string;
  turnId: string;
  settings: LivenessSettings;
  logger: Logger;
  emit(event: SupervisorEvent): void;
}

/** The notice for the turn's transcript ("Stopped 2 processes…"), or undefined. Never throws. */
export async function reportLeftovers(handle: AgentHandle | undefined, d: TurnContext): Promise<string | undefined> {
  if (!handle?.stopLeftovers) return undefined;
  try {
    const report = await handle.stopLeftovers(d.turnId, d.settings.graceMs);
    if (!report) return undefined;
    d.logger.warn(`Session ${d.sessionId}, turn ${d.turnId}: ${report.summary}`);
    void report.killed.then((text) => {
      if (!text) return;
      d.logger.warn(`Session ${d.sessionId}, turn ${d.turnId}: ${text}`);
      d.emit({ type: 'notice', sessionId: d.sessionId, level: 'warning', message: text });
    });
    return `${report.summary}.`;
  } catch (error) {
    d.logger.error(`Session ${d.sessionId}: stopping the processes turn ${d.turnId} left running failed: ${errorMessage(error)}`);
    return undefined;
  }
}
