// Builders for session view payloads used by the webview tests.

import type { EntryView, HostEvent, SessionSnapshot, TaskView, ToolCallView } from '../../../src/shared/sessionView';
import { emptySnapshot } from '../../../src/shared/sessionView';
import { applyHostEvent } from '../../../src/shared/sessionViewReducer';
import type { WebviewMessage } from '../../../src/shared/webviewProtocol';
import type { IntentHandlers } from '../../../src/extension/presentation/viewHandlers';
import { sideBarSurface, type ViewSurface } from '../../../src/extension/presentation/viewSurface';

export function snapshotWith(entries: EntryView[] = [], patch: Partial<SessionSnapshot> = {}): SessionSnapshot {
  return { ...emptySnapshot(), session: { id: 's1', title: 'Session one' }, entries, ...patch };
}

export function userEntry(id: string, text = `question ${id}`): EntryView {
  return { kind: 'user', id, text, at: 1_000 };
}

export function agentEntry(id: string, markdown = `answer ${id}`, streaming = false): EntryView {
  return { kind: 'agent', id, markdown, streaming, at: 1_000 };
}

export function toolCall(id: string, patch: Partial<ToolCallView> = {}): ToolCallView {
  return { toolCallId: id, title: `run ${id}`, kind: 'execute', status: 'pending', content: [], startedAt: 1_000, ...patch };
}

export function task(id: string, patch: Partial<TaskView> = {}): TaskView {
  return { id, command: 'npm test', status: 'running', startedAt: 1_000, ...patch };
}

/** A long mixed transcript like the ones the first-paint bar is about. */
export function longTranscript(n: number): EntryView[] {
  const entries: EntryView[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 3 === 0) entries.push(userEntry(`u${i}`));
    else if (i % 3 === 1) entries.push(agentEntry(`a${i}`, `**answer** ${i}\n\n\`\`\`ts\nconst x = ${i};\n\`\`\``));
    else entries.push({ kind: 'toolCall', id: `tool:t${i}`, at: 1_000, toolCall: toolCall(`t${i}`, { status: 'completed', endedAt: 2_000 }) });
  }
  return entries;
}

/**
 * Stands in for the shown session's model (SessionPresenter) in channel tests: it folds what it posts
 * and is the snapshot the surface gives the channel, as the extension wires them.
 */
export class ModelStub {
  snapshot: SessionSnapshot = emptySnapshot();
  channel: { postSnapshot(snapshot: SessionSnapshot): void; postEvent(event: HostEvent): void } | undefined;

  postSnapshot(snapshot: SessionSnapshot): void {
    this.snapshot = snapshot;
    this.channel?.postSnapshot(snapshot);
  }

  postEvent(event: HostEvent): void {
    this.snapshot = applyHostEvent(this.snapshot, event);
    this.channel?.postEvent(event);
  }
}

const intentTypes: Record<keyof IntentHandlers, true> = {
  prompt: true, mentionQuery: true, dropUris: true, activeProblems: true, elicitation: true, openElicitationUrl: true, stop: true, resume: true,
  approval: true, showTaskOutput: true, killTask: true, openSession: true, openFile: true, openDiff: true, noticeAction: true, agentOption: true,
  restoreCheckpoint: true, openTurnChanges: true, redo: true,
};

/**
 * The view's handlers in channel tests: each records what it is given as `[type, intent]` (the message without its
 * type and request id); `overrides` replace some, `without` leaves some out (a map built around the types).
 */
export function recordingHandlers(calls: [string, unknown][], overrides: Partial<IntentHandlers> = {}, without: (keyof IntentHandlers)[] = []): IntentHandlers {
  const record = (message: WebviewMessage) => {
    const { type, id: _id, ...intent } = message;
    calls.push([type, intent]);
  };
  const handlers = Object.fromEntries(Object.keys(intentTypes).filter((type) => !without.includes(type as keyof IntentHandlers)).map((type) => [type, record]));
  return { ...handlers, ...overrides } as IntentHandlers;
}

/** The side bar's surface over a model stub: a message names its session or none. */
export function stubSurface(snapshot: () => SessionSnapshot): ViewSurface {
  return sideBarSurface({ getSnapshot: snapshot, currentSessionId: undefined });
}
