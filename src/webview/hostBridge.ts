// The webview's only line to the extension host: validates everything received, numbers every
// intent with a request id, and keeps the small view state (scroll, draft) VS Code persists for us.

import { parseHostMessage, type HostMessage, type WebviewMessage } from '../shared/webviewProtocol';

/** What survives a webview reload besides what the host re-sends: nothing that matters. */
export interface ViewState {
  draft?: string;
  followTail?: boolean;
  anchorEntryId?: string;
  anchorOffset?: number;
  /** The session shown: an editor tab reopened after a reload asks the host for it (SessionPanels' serializer). */
  sessionId?: string;
}

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type Intent = DistributiveOmit<WebviewMessage, 'id'>;

export class HostBridge {
  private readonly api: VsCodeApi;
  private nextId = 1;

  constructor() {
    // acquireVsCodeApi may be called once per page load; this is the one place that does.
    this.api = acquireVsCodeApi();
  }

  /** Posts an intent and returns its request id. */
  post(intent: Intent): string {
    const id = `w${this.nextId++}`;
    this.api.postMessage({ ...intent, id } as WebviewMessage);
    return id;
  }

  /** Delivers only valid host messages; an invalid one is dropped and reported to the host. */
  listen(onMessage: (message: HostMessage) => void): void {
    window.addEventListener('message', (event: MessageEvent) => {
      // Marked before validation, so the first-paint figure includes it.
      if ((event.data as { type?: unknown } | null)?.type === 'snapshot') performance.mark('vigil:snapshot-received');
      const parsed = parseHostMessage(event.data);
      if (parsed.ok) {
        const shown = sessionShown(parsed.message);
        if (shown !== undefined && shown !== this.viewState.sessionId) this.saveViewState({ sessionId: shown });
        onMessage(parsed.message);
        return;
      }
      this.reportDropped(parsed.reason);
    });
  }

  reportDropped(reason: string): void {
    console.warn(`[vigil] dropped host message: ${reason}`);
    this.post({ type: 'error', message: `webview dropped a host message: ${reason}`.slice(0, 4_000) });
  }

  get viewState(): ViewState {
    const raw = this.api.getState();
    if (raw === null || typeof raw !== 'object') return {};
    // Stored by us, but still only read the fields we know, with the types we expect.
    const s = raw as Record<string, unknown>;
    return {
      draft: typeof s.draft === 'string' ? s.draft : undefined,
      followTail: typeof s.followTail === 'boolean' ? s.followTail : undefined,
      anchorEntryId: typeof s.anchorEntryId === 'string' ? s.anchorEntryId : undefined,
      anchorOffset: typeof s.anchorOffset === 'number' ? s.anchorOffset : undefined,
      sessionId: typeof s.sessionId === 'string' ? s.sessionId : undefined,
    };
  }

  saveViewState(patch: ViewState): void {
    this.api.setState({ ...this.viewState, ...patch });
  }
}

/** The session a message puts in the view: a snapshot's, or that of a session the view started (its first meta). */
function sessionShown(message: HostMessage): string | undefined {
  if (message.type === 'snapshot') return message.snapshot.session?.id;
  if (message.type === 'event' && message.event.type === 'sessionMetaChanged') return message.event.session.id;
  return undefined;
}
