// The view a webview message came from, as its handlers see it: the side bar's view (whichever session it
// shows) or an editor tab of one session. A tab aims every message at its own session, and refuses one naming
// another (the tab never shows another); its snapshot is always its own session's model.

import type { SessionSnapshot } from '../../shared/sessionView';

export interface ViewSurface {
  /**
   * The model of the session the view shows, as it is now: every `ready` is answered with it, so it must reflect
   * every event posted so far (the channel keeps no copy). Synchronous, so no event can slip between taking the
   * snapshot and sending it.
   */
  snapshot(): SessionSnapshot;
  /** The session a message is for: the one it names, else the one the view shows (none: no session is open). */
  aim(sessionId: string | undefined): string | undefined;
}

/** The side bar's view: a message names its session, or means the one the view shows. */
export function sideBarSurface(sessions: { getSnapshot(): SessionSnapshot; readonly currentSessionId: string | undefined }): ViewSurface {
  return { snapshot: () => sessions.getSnapshot(), aim: (sessionId) => sessionId ?? sessions.currentSessionId };
}

/** An editor tab of `sessionId`: every message is for that session. */
export function tabSurface(sessionId: string, snapshot: () => SessionSnapshot): ViewSurface {
  return {
    snapshot,
    aim: (named) => {
      if (named !== undefined && named !== sessionId) throw new Error('This tab shows another session; send it from that session\'s view.');
      return sessionId;
    },
  };
}
