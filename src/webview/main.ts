// Session webview entry: adopts the stylesheet, starts the app.
//
// Stable hooks for e2e tests (keep them when changing markup):
//   #app[data-phase][data-session-id][data-painted-seq]   root; data-phase = turn phase;
//                                       data-painted-seq is set once a snapshot has been painted
//   performance.mark('vigil:snapshot-received'), performance.mark('vigil:tail-painted')
//   #session-title, #open-session, #empty-state
//   #transcript                         scroll container (role=log); only a window of entries is in the DOM
//   .entry[data-entry-id]               .entry.user | .agent (.streaming) | .thought | .tool-call | .plan | .notice | .wakeup
//   .entry.tool-call[data-tool-call-id][data-status]  .tool-title .tool-status .tool-duration .tool-input .tool-output .diff
//   #older-edge ("Loading N earlier entries…" until a long session's history arrived, then "N earlier
//   entries"), #newer-edge, #jump-to-latest
//   #turn-status[data-phase]            .phase (the state's term) .phase-hint .waiting-on .silence .where (a turn another window runs)
//   #notices .quiet-banner | .stall-banner | .abort-notice | .interrupted-notice | .error-notice  (.notice-text the summary,
//                                       details.notice-details > summary + .notice-detail folded, .resume)
//   .host-error                         an error the host answered an intent with
//   #approvals .approval[data-request-id]  .allow-once .allow-always .reject (a new one takes focus; Alt+A focuses it)
//   #turn-phase[role=status]            the live region: phase text only, never a clock
//   .entry.user > .copy-entry, .entry.agent > .copy-entry   Copy as Markdown (through the host)
//   .entry.user > .edit-message (the last message), .entry.user.editing .edit-input .edit-send .edit-cancel,
//   .entry.user[data-redo] .redo-label, .replaced (dimmed exchange), #turn-actions .retry-turn .regenerate-answer
//   .task-strip .task[data-task-id]     .task-command (first) .task-state (.task-elapsed | .task-exit) .show-output .kill
//   #prompt-input (a native textarea), #send, #stop  (buttons are native <button class="button">)
//   #attach-image, #attach-problems, .attachment-chips .chip[data-kind], .composer-problem   attachments and why one was refused
//   #agent-options .agent-option[data-config-id][data-category] (.agent-option-value), .agent-options-all,
//   .agent-option-pending, #agent-usage   the agent's model/mode/options and context usage in the header
//   #command-list[role=listbox] .command-option[data-command] (.active)  the `/` completions; #command-hint
//   .entry.checkpoint[data-turn-id] .restore-checkpoint .checkpoint-note   a turn's checkpoint

import './elapsedClock';
import { HostBridge } from './hostBridge';
import { SessionApp } from './sessionApp';
import { sessionStyles } from './styles';
import { checkpointStyles } from './checkpointView';
import { messageEditStyles } from './messageEdit';
import { accessibilityStyles, ViewAccessibility } from './viewAccessibility';

const sheets = [sessionStyles.styleSheet, checkpointStyles.styleSheet, messageEditStyles.styleSheet, accessibilityStyles.styleSheet].filter((s): s is CSSStyleSheet => s !== undefined);
document.adoptedStyleSheets = [...document.adoptedStyleSheets, ...sheets];

const root = document.getElementById('app') ?? document.body.appendChild(document.createElement('div'));
root.id = 'app';
const bridge = new HostBridge();
new ViewAccessibility(root).start();
new SessionApp(root, bridge).start();

// A heartbeat while a person can see this view: the host tells other windows which session is in
// sight. A closed or hidden tab (code-server keeps its extension host alive) stops it.
const heartbeat = () => {
  if (document.visibilityState === 'visible') bridge.post({ type: 'ping' });
};
setInterval(heartbeat, 4_000);
document.addEventListener('visibilitychange', heartbeat);
heartbeat();
