// The controller of an editor tab that shows one session: every intent is the side bar's, aimed at the
// tab's session. An intent naming another session is refused (the tab never shows another), and the
// snapshot is always its own session's model, whichever surface built it.

import type { SessionSnapshot } from '../../shared/sessionView';
import type { SessionViewController } from './sessionViewController';

type Aimed = { sessionId?: string };

export function tabController(inner: SessionViewController, sessionId: string, snapshot: () => SessionSnapshot): SessionViewController {
  const aim = <T extends Aimed>(intent: T): T & { sessionId: string } => {
    if (intent.sessionId !== undefined && intent.sessionId !== sessionId) throw new Error('This tab shows another session; send it from that session\'s view.');
    return { ...intent, sessionId };
  };
  return {
    getSnapshot: snapshot,
    onPrompt: (intent) => inner.onPrompt(aim(intent)),
    onMentionQuery: inner.onMentionQuery && ((intent) => inner.onMentionQuery!(aim(intent))),
    onElicitation: inner.onElicitation && ((intent) => inner.onElicitation!(aim(intent))),
    onDropUris: inner.onDropUris && ((intent) => inner.onDropUris!(aim(intent))),
    onActiveProblems: inner.onActiveProblems && ((intent) => inner.onActiveProblems!(aim(intent))),
    onOpenElicitationUrl: inner.onOpenElicitationUrl && ((intent) => inner.onOpenElicitationUrl!({ ...intent, sessionId })),
    onStop: (intent) => inner.onStop(aim(intent)),
    onResume: (intent) => inner.onResume(aim(intent)),
    onApproval: (intent) => inner.onApproval(aim(intent)),
    onShowTaskOutput: (intent) => inner.onShowTaskOutput(intent),
    onKillTask: (intent) => inner.onKillTask(intent),
    onOpenFile: (intent) => inner.onOpenFile(intent),
    onOpenDiff: inner.onOpenDiff && ((intent) => inner.onOpenDiff!(intent)),
    // A link to a session (or "open one") is the side bar's business: it shows what the person picks.
    onOpenSession: (intent) => inner.onOpenSession(intent),
    onNoticeAction: inner.onNoticeAction && ((intent) => inner.onNoticeAction!(aim(intent))),
    onAgentOption: inner.onAgentOption && ((intent) => inner.onAgentOption!(aim(intent))),
    onRestoreCheckpoint: inner.onRestoreCheckpoint && ((intent) => inner.onRestoreCheckpoint!(aim(intent))),
    onOpenTurnChanges: inner.onOpenTurnChanges && ((intent) => inner.onOpenTurnChanges!(aim(intent))),
    onRedo: inner.onRedo && ((intent) => inner.onRedo!(aim(intent))),
  };
}
