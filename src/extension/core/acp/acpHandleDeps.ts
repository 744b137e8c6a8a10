// What an AcpAgentHandle is given, and what it holds of a running agent.

import type { ChatMessage } from '../../../shared/agentProtocol/history';
import type { Logger } from '../ports/logger';
import type { TerminalHost } from '../ports/terminalHost';
import type { AgentMarker } from '../supervisor/turnProcesses';
import type { AcpConnection } from './acpConnection';
import type { LaunchSpec } from './agentLaunch';
import type { AgentChannel } from './agentProcess';
import type { AgentSessionBook } from './agentSessionBinding';
import type { EditJournal } from './editJournal';
import type { ElicitationPrompter } from './elicitationHost';
import type { ApprovalPolicy, LanguageModelBridge, PermissionPrompter } from './hostPorts';
import type { McpServerSource } from './mcpServerSource';
import type { StderrLog } from './stderrLog';
import type { TerminalBridge } from './terminalBridge';

/**
 * How long a starting agent may take to answer `initialize`. Node-based agents such as Gemini CLI load for
 * several seconds, and on a machine busy with a build that grows past 20 s; a wedged start still ends with
 * its stderr shown, just later.
 */
export const defaultInitializeTimeoutMs = 60_000;

/** An agent behind Vigil's relay (core/relay): it outlives the window, which can leave it and take it back. */
export interface RelayedChannel extends AgentChannel {
  /** What the relay kept for a window that takes the agent back. */
  readonly welcome: {
    initialize?: unknown;
    sessions: string[];
    inflight: { method: string; sessionId?: string }[];
    silentMs: number;
    /** Per ACP session: what it was opened with and the latest state updates, in order (the relay's KeptState). */
    state?: Record<string, ({ kind: 'opened'; result: unknown } | { kind: 'update'; update: unknown })[]>;
    /** The agent's process marker (the value of its VIGIL_AGENT_RUN). */
    marker?: string;
    /** The agent the relay runs (the LaunchSpec it was started from, without its environment). */
    agent?: Pick<LaunchSpec, 'command' | 'args' | 'label' | 'builtin'>;
  };
  /**
   * The window goes while a turn runs: the agent keeps running, the relay's deadline starts. What the turn
   * received is stored and acknowledged first (bounded), so the next window's replay holds nothing it has.
   */
  detach(): Promise<void>;
  /**
   * `stored` resolves once what the turn received so far is in its transcript; the relay is told a message
   * arrived only after that, so a window killed in between loses nothing (it is replayed to the next one).
   * Undefined between turns: messages are acknowledged as they are handed on.
   */
  ackAfter(stored: (() => Promise<void>) | undefined): void;
  /** Lets through the agent's messages held since the attach (the replay of what this window missed). */
  flow(): void;
  /** Answers to requests an earlier window sent (its `session/prompt`). */
  onOrphan(listener: (orphan: { method: string; sessionId?: string; message: Record<string, unknown> }) => void): void;
  /** Whether the held messages carry the answer to an earlier window's `session/prompt` of `acpSessionId`. */
  heldPromptAnswer(acpSessionId: string): boolean;
  /** Settles once the relay's replay has arrived (the held messages are then all there is from before), or it is gone. */
  readonly replayed: Promise<void>;
  /** Why the relay ended the agent, when it did (its deadline). */
  readonly endReason: string | undefined;
}

/** Starts agents behind the relay and finds a session's running one. */
export interface AgentRelays {
  start(sessionId: string, spec: LaunchSpec, cwd: string, stderr: StderrLog): Promise<RelayedChannel>;
  /** The session's relay, attached with its messages held until `flow()`; undefined when none runs. */
  attach(sessionId: string, stderr: StderrLog, epoch?: number): Promise<RelayedChannel | undefined>;
}

/** `takingBack`: the spec of an agent already running behind a relay, read as the settings are now, without waiting or asking. */
export interface LaunchPurpose {
  takingBack?: boolean;
}

export interface AcpHandleDeps {
  log: Logger;
  /** The session's workspace folder: the agent's cwd and the root that fs/* is confined to. */
  cwd: string;
  /** Chosen per spawn, so a changed setting or API key applies from the next process on. */
  launch(purpose?: LaunchPurpose): Promise<LaunchSpec>;
  policy: ApprovalPolicy;
  prompter: PermissionPrompter;
  terminals?: TerminalHost;
  lm?: LanguageModelBridge;
  /** Bound on the agent's answer to `initialize` (default {@link defaultInitializeTimeoutMs}). */
  initializeTimeoutMs?: number;
  /** History from the durable transcript for the first spawn (e.g. after a window reload). */
  loadHistory?(): Promise<ChatMessage[]>;
  /** MCP servers offered to the agent whenever a session is opened (none when absent). */
  mcpServers?: readonly McpServerSource[];
  /** Puts the agent's elicitations (forms, URLs) to the person; without it none are advertised. */
  elicitations?: ElicitationPrompter;
  /** Where the agent's session id is kept for the next process (a reload, another window); in memory when absent. */
  agentSessions?: AgentSessionBook;
  /** Bound on `session/close` and `session/delete` when the agent is released (default 2 s). */
  closeTimeoutMs?: number;
  /** Keeps what the agent's writes replaced, for their diffs and `ask` review (shared by every session of the window). */
  edits?: EditJournal;
  /** Bound on each of `session/resume`, `load` and `new` (default 60 s). */
  openTimeoutMs?: number;
  /** Runs each session's agent behind the relay, so a turn outlives its window; absent: agents are the host's children. */
  relays?(): AgentRelays | undefined;
}

export interface LiveAgent {
  process: AgentChannel;
  connection: AcpConnection;
  acpSessionId: string;
  terminals: TerminalBridge;
  /** This process's token in the durable binding; undefined when it could not be recorded. */
  opener?: string;
  label: string;
  marker: AgentMarker;
}
