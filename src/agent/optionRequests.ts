// The built-in agent's side of its sessions' options: the provider's model list (asked once per process, at the
// first session, and kept), the options each `session/new|load` answer carries, and `session/set_config_option`
// and `session/set_mode` (sessionOptions.ts says what the options are).

import type { AgentApp, AgentContext } from '@agentclientprotocol/sdk';
import type { AgentConfig } from './config';
import type { HostChannel } from './hostChannel';
import { log } from './log';
import { listModels, type ModelChoice } from './modelList';
import type { AgentSession } from './session';
import { applyOption, configOptionsOf, modeConfigId, modeStateOf } from './sessionOptions';

export class OptionRequests {
  private models: Promise<ModelChoice[]> | undefined;
  private known: ModelChoice[] | undefined;

  constructor(
    private readonly config: AgentConfig,
    private readonly o: {
      sessionOf(id: string): AgentSession;
      /** Whether this session is still the open one under its id (not closed or replaced meanwhile). */
      isOpen(session: AgentSession): boolean;
      hostFor(client: AgentContext): HostChannel;
    },
  ) {}

  /** A new session's model window, when the list is known already. */
  windowOf(model: string): number | undefined {
    return this.known?.find((m) => m.id === model)?.contextWindow;
  }

  /** What `session/new|load` answers; while the model list is not known yet, the rest follows as `config_option_update`. */
  offer(session: AgentSession, client: AgentContext): { configOptions: ReturnType<typeof configOptionsOf>; modes: ReturnType<typeof modeStateOf> } {
    if (this.known === undefined) {
      this.models ??= listModels(this.config, this.o.hostFor(client)).then((list) => (this.known = list));
      void this.models.then((list) => {
        // The window of the session's model as the list gives it (read before each model call).
        session.modelWindow ??= list.find((m) => m.id === session.model)?.contextWindow;
        // After the answer to session/new|load has gone out, so the client knows the session it is about.
        setImmediate(() => {
          if (!this.o.isOpen(session)) return;
          void client.notify('session/update', { sessionId: session.id, update: { sessionUpdate: 'config_option_update', configOptions: this.optionsOf(session) } }).catch(() => undefined);
        });
      });
    }
    return { configOptions: this.optionsOf(session), modes: modeStateOf(session) };
  }

  serve(app: AgentApp): void {
    app.onRequest('session/set_config_option', async ({ params, client }) => {
      const session = this.o.sessionOf(params.sessionId);
      const value: unknown = params.value;
      const changed = applyOption(session, params.configId, value, this.known ?? []);
      log('info', `session ${session.id}: ${params.configId} is ${String(value)}${changed ? '' : ' (unchanged)'}`);
      if (changed === 'mode') await client.notify('session/update', { sessionId: session.id, update: { sessionUpdate: 'current_mode_update', currentModeId: session.mode } });
      return { configOptions: this.optionsOf(session) };
    });
    app.onRequest('session/set_mode', async ({ params, client }) => {
      const session = this.o.sessionOf(params.sessionId);
      if (applyOption(session, modeConfigId, params.modeId, this.known ?? [])) {
        log('info', `session ${session.id}: mode is ${session.mode}`);
        await client.notify('session/update', { sessionId: session.id, update: { sessionUpdate: 'config_option_update', configOptions: this.optionsOf(session) } });
      }
      return {};
    });
  }

  private optionsOf(session: AgentSession) {
    return configOptionsOf(session, this.known ?? [], this.config.provider);
  }
}
