// The view's stylesheet, adopted by the document (no inline <style>, so the CSP needs no
// 'unsafe-inline'). Colours and fonts come only from VS Code's theme variables.

import { css } from 'lit';

export const sessionStyles = css`
  html, body { height: 100%; margin: 0; padding: 0; }
  body {
    color: var(--vscode-foreground);
    background: var(--vscode-sideBar-background, var(--vscode-editor-background));
    font-family: var(--vscode-font-family);
    font-size: var(--vscode-font-size);
  }
  #app { display: flex; flex-direction: column; height: 100vh; box-sizing: border-box; }
  /*
   * VS Code's button, drawn by the browser: a custom element per button cost a shadow root, a copy of
   * the icon font's stylesheet and an icon element each: about 40 ms of a fresh view's first paint.
   */
  .button {
    display: inline-flex; align-items: center; justify-content: center; gap: 4px; box-sizing: border-box;
    padding: 1px 13px; border: 1px solid var(--vscode-button-border, transparent); border-radius: 4px;
    font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); font-weight: var(--vscode-font-weight, normal); line-height: 22px;
    color: var(--vscode-button-foreground); background: var(--vscode-button-background);
    cursor: pointer; white-space: nowrap; user-select: none;
  }
  .button:hover, .button:focus-visible { background: var(--vscode-button-hoverBackground); }
  .button:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 2px; }
  .button.secondary {
    color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground);
    border-color: var(--vscode-button-border, var(--vscode-button-secondaryBackground));
  }
  .button.secondary:hover, .button.secondary:focus-visible { background: var(--vscode-button-secondaryHoverBackground); }
  .button:disabled { opacity: 0.4; cursor: default; pointer-events: none; }
  .button > .codicon { font-size: 16px; }
  #session-header {
    display: flex; align-items: center; gap: 6px; padding: 4px 8px;
    border-bottom: 1px solid var(--vscode-panel-border, transparent);
  }
  /* From a zero basis: a long title is cut with an ellipsis beside the icon and Open…, never wrapped below them. */
  #session-title { flex: 1 1 0; min-width: 4em; font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  /* The model label yields to the title in a narrow sidebar. */
  .session-wakeups { flex: 0 0 auto; color: var(--vscode-editorWarning-foreground); font-size: 0.9em; white-space: nowrap; }
  .session-model { flex: 0 1 auto; min-width: 0; max-width: 40%; color: var(--vscode-descriptionForeground); font-size: 0.9em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  #transcript { position: relative; flex: 1; overflow-y: auto; overflow-anchor: none; padding: 8px; }
  #empty-state { color: var(--vscode-descriptionForeground); padding: 16px 4px; }
  .edge { color: var(--vscode-descriptionForeground); text-align: center; font-size: 0.9em; padding: 6px; }
  .entry { margin: 0 0 10px 0; line-height: 1.45; overflow-wrap: anywhere; }
  .entry .who { color: var(--vscode-descriptionForeground); font-size: 0.9em; margin-bottom: 2px; }
  .entry.user .text {
    white-space: pre-wrap; padding: 6px 8px; border-radius: 4px;
    background: var(--vscode-input-background); border: 1px solid var(--vscode-input-border, transparent);
  }
  .entry.agent .markdown > :first-child { margin-top: 0; }
  .entry.agent .markdown > :last-child { margin-bottom: 0; }
  .entry.agent.streaming .markdown > :last-child::after { content: '▍'; opacity: 0.6; }
  .markdown pre, .tool-section pre, .approval-input, .wakeup pre {
    background: var(--vscode-textCodeBlock-background); padding: 6px 8px; border-radius: 3px;
    overflow-x: auto; font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); margin: 4px 0;
    white-space: pre-wrap;
  }
  .markdown code, code { font-family: var(--vscode-editor-font-family); }
  .markdown a { color: var(--vscode-textLink-foreground); }
  .markdown a.file-link { cursor: pointer; text-decoration: underline dotted; }
  .markdown blockquote { border-left: 3px solid var(--vscode-textBlockQuote-border); margin: 4px 0; padding: 0 8px; background: var(--vscode-textBlockQuote-background); }
  .markdown table { border-collapse: collapse; }
  .markdown th, .markdown td { border: 1px solid var(--vscode-panel-border, var(--vscode-widget-border)); padding: 2px 6px; }
  details.thought summary, details.tool-card summary, .wakeup summary { cursor: pointer; }
  .entry.thought { color: var(--vscode-descriptionForeground); font-style: italic; }
  .entry.thought .text { white-space: pre-wrap; padding: 4px 0 0 18px; }
  .entry.tool-call details.tool-card {
    border: 1px solid var(--vscode-widget-border, var(--vscode-panel-border)); border-radius: 4px;
    background: var(--vscode-editorWidget-background); padding: 4px 8px;
  }
  .tool-card summary { display: flex; align-items: center; gap: 6px; list-style: none; }
  .tool-card summary::-webkit-details-marker { display: none; }
  .tool-title { flex: 1; font-family: var(--vscode-editor-font-family); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .tool-status { font-size: 0.9em; color: var(--vscode-descriptionForeground); display: inline-flex; align-items: center; gap: 3px; }
  .tool-status.status-completed { color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
  .tool-status.status-failed { color: var(--vscode-errorForeground); }
  .tool-status.status-cancelled, .tool-status.status-ended { color: var(--vscode-disabledForeground); }
  .tool-duration { font-size: 0.9em; color: var(--vscode-descriptionForeground); min-width: 3ch; text-align: right; }
  .tool-section { margin-top: 6px; }
  .label { font-size: 0.85em; color: var(--vscode-descriptionForeground); text-transform: uppercase; letter-spacing: 0.03em; }
  .diff .diff-line { white-space: pre-wrap; }
  .diff .diff-add { background: var(--vscode-diffEditor-insertedLineBackground, rgba(155, 185, 85, 0.2)); }
  .diff .diff-del { background: var(--vscode-diffEditor-removedLineBackground, rgba(255, 0, 0, 0.2)); }
  .diff .diff-skip { color: var(--vscode-descriptionForeground); font-style: italic; }
  .entry.plan ul { list-style: none; padding-left: 4px; margin: 4px 0; }
  .plan-item.completed { color: var(--vscode-descriptionForeground); text-decoration: line-through; }
  .plan-item.in_progress { font-weight: 600; }
  .entry.notice { padding: 4px 8px; border-left: 3px solid var(--vscode-editorWarning-foreground); color: var(--vscode-descriptionForeground); }
  .entry.notice.notice-error, .entry.notice.notice-abort, .entry.notice.notice-interrupted { border-left-color: var(--vscode-errorForeground); }
  .entry.wakeup { color: var(--vscode-descriptionForeground); border-top: 1px dashed var(--vscode-panel-border, var(--vscode-widget-border)); padding-top: 4px; }
  #jump-to-latest { align-self: center; margin: -36px 0 8px; z-index: 1; }
  #turn-status {
    display: flex; gap: 6px; align-items: center; padding: 2px 8px; font-size: 0.9em;
    color: var(--vscode-descriptionForeground); border-top: 1px solid var(--vscode-panel-border, transparent);
  }
  #turn-status[data-phase='quiet'] { color: var(--vscode-editorWarning-foreground); }
  #turn-status[data-phase='stalled'], #turn-status[data-phase='aborted'], #turn-status[data-phase='interrupted'] { color: var(--vscode-errorForeground); }
  /*
   * A notice is a one-line summary with its details folded under it; its buttons sit beside the summary when
   * there is room and on a line of their own in a narrow side bar (the summary keeps 16em before they wrap).
   */
  .notice-banner { display: flex; flex-wrap: wrap; align-items: flex-start; gap: 2px 8px; padding: 4px 8px; margin: 4px 8px; border-radius: 4px; }
  .notice-banner > .notice-details, .notice-banner > .notice-summary { flex: 1 1 16em; min-width: 0; }
  .notice-summary { display: flex; align-items: center; gap: 6px; min-width: 0; min-height: 24px; }
  details.notice-details > summary { list-style: none; cursor: pointer; }
  details.notice-details > summary::-webkit-details-marker { display: none; }
  .notice-details .notice-text { flex: 1 1 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .notice-details[open] .notice-text { white-space: normal; overflow-wrap: anywhere; }
  .notice-plain .notice-text, .host-error .notice-text { flex: 1 1 12em; min-width: 0; white-space: pre-line; overflow-wrap: anywhere; }
  .notice-more { flex: 0 0 auto; }
  .notice-details[open] .notice-more { transform: rotate(90deg); }
  .notice-detail { white-space: pre-line; overflow-wrap: anywhere; margin: 2px 0 4px 22px; }
  .notice-banner .notice-actions { display: flex; flex-wrap: wrap; gap: 6px; margin-left: auto; }
  .quiet-banner { background: var(--vscode-inputValidation-infoBackground); border: 1px solid var(--vscode-inputValidation-infoBorder); }
  .stall-banner { background: var(--vscode-inputValidation-warningBackground); border: 1px solid var(--vscode-inputValidation-warningBorder); }
  .abort-notice, .interrupted-notice, .error-notice {
    background: var(--vscode-inputValidation-errorBackground); border: 1px solid var(--vscode-inputValidation-errorBorder);
  }
  .info-notice { background: var(--vscode-editorWidget-background); border: 1px solid var(--vscode-widget-border, transparent); }
  /* Restricted Mode's line says which agent answers: never cut, whatever the width. */
  .restricted-line .notice-details .notice-text { white-space: normal; overflow-wrap: anywhere; }
  .approval {
    margin: 4px 8px; padding: 6px 8px; border-radius: 4px;
    border: 1px solid var(--vscode-focusBorder); background: var(--vscode-editorWidget-background);
  }
  .approval-buttons { display: flex; gap: 6px; margin-top: 6px; flex-wrap: wrap; }
  .task-strip { display: flex; flex-direction: column; gap: 2px; padding: 2px 8px; }
  .task-strip.empty { display: none; }
  /* One line per task however narrow the side bar: the name yields (ellipsis), the state and the icon buttons do not. */
  .task { display: flex; align-items: center; gap: 6px; font-size: 0.9em; min-width: 0; white-space: nowrap; }
  /* Not VS Code's inline-code chip: a list of names reads better without a box around each. */
  .task .task-command { flex: 1 1 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; padding: 0; background: none; color: inherit; }
  .task .task-state { flex: 0 0 auto; color: var(--vscode-descriptionForeground); }
  .task.failed .task-exit { color: var(--vscode-errorForeground); }
  .icon-button {
    display: inline-flex; align-items: center; justify-content: center; flex: 0 0 auto; padding: 2px; border: none; border-radius: 4px;
    color: var(--vscode-icon-foreground); background: transparent; cursor: pointer;
  }
  .icon-button:hover { background: var(--vscode-toolbar-hoverBackground); }
  .icon-button:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: -1px; }
  #composer { display: flex; flex-direction: column; gap: 4px; padding: 6px 8px 8px; }
  #prompt-input {
    resize: vertical; min-height: 3em; max-height: 40vh; box-sizing: border-box; width: 100%;
    color: var(--vscode-input-foreground); background: var(--vscode-input-background);
    border: 1px solid var(--vscode-input-border, transparent); border-radius: 2px; padding: 4px 6px;
    font-family: var(--vscode-font-family); font-size: var(--vscode-font-size);
  }
  #prompt-input:focus { outline: 1px solid var(--vscode-focusBorder); outline-offset: -1px; }
  #prompt-input::placeholder { color: var(--vscode-input-placeholderForeground); }
  .composer-buttons { display: flex; flex-wrap: wrap; gap: 6px; justify-content: flex-end; }
  .composer-attach, .composer-send { display: flex; gap: 6px; }
  #session-header { flex-wrap: wrap; }
  /* A narrow side bar: Open… is its icon, so the title keeps its line and the transcript the room below it. */
  @media (max-width: 360px) { #open-session .button-label { display: none; } }
  #agent-options { flex: 1 1 100%; display: flex; flex-wrap: wrap; align-items: center; gap: 4px; min-width: 0; font-size: 0.9em; }
  .agent-option {
    display: inline-flex; align-items: center; gap: 3px; max-width: 14em; padding: 1px 6px; cursor: pointer;
    color: var(--vscode-foreground); background: var(--vscode-badge-background, transparent);
    border: 1px solid var(--vscode-widget-border, transparent); border-radius: 3px; font: inherit;
  }
  .agent-option:hover { background: var(--vscode-toolbar-hoverBackground); }
  .agent-option:focus-visible { outline: 1px solid var(--vscode-focusBorder); }
  .agent-option-value { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .agent-option-pending { color: var(--vscode-descriptionForeground); }
  .agent-usage { margin-left: auto; color: var(--vscode-descriptionForeground); white-space: nowrap; }
  .agent-usage.near-full { color: var(--vscode-editorWarning-foreground); }
  #command-list {
    list-style: none; margin: 0; padding: 2px 0; max-height: 12em; overflow-y: auto;
    background: var(--vscode-editorSuggestWidget-background, var(--vscode-editorWidget-background));
    border: 1px solid var(--vscode-editorSuggestWidget-border, var(--vscode-widget-border, transparent)); border-radius: 3px;
  }
  .command-option { display: flex; gap: 8px; align-items: baseline; padding: 2px 8px; cursor: pointer; }
  .command-option.active {
    color: var(--vscode-editorSuggestWidget-selectedForeground, var(--vscode-list-activeSelectionForeground));
    background: var(--vscode-editorSuggestWidget-selectedBackground, var(--vscode-list-activeSelectionBackground));
  }
  .command-name { font-family: var(--vscode-editor-font-family); font-weight: 600; white-space: nowrap; }
  .command-description { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; color: var(--vscode-descriptionForeground); }
  .command-option.active .command-description { color: inherit; }
  .command-input-hint { font-style: italic; color: var(--vscode-descriptionForeground); white-space: nowrap; }
  .command-hint-line { font-size: 0.9em; color: var(--vscode-descriptionForeground); }
  .attachment-chips, .entry-attachments { display: flex; flex-wrap: wrap; gap: 4px; list-style: none; margin: 0; padding: 0; }
  .chip, .entry-attachment {
    display: inline-flex; align-items: center; gap: 4px; max-width: 100%; padding: 1px 4px; border-radius: 3px; font-size: 0.9em;
    background: var(--vscode-badge-background); color: var(--vscode-badge-foreground);
  }
  .chip-label { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 30em; }
  .chip-remove { background: none; border: none; color: inherit; cursor: pointer; padding: 0; display: inline-flex; }
  .chip-remove:focus-visible { outline: 1px solid var(--vscode-focusBorder); }
  .mention-picker { border: 1px solid var(--vscode-widget-border, var(--vscode-focusBorder)); background: var(--vscode-editorSuggestWidget-background, var(--vscode-editorWidget-background)); max-height: 14em; overflow-y: auto; }
  .mention-picker ul { list-style: none; margin: 0; padding: 0; }
  .mention-option { padding: 2px 6px; cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  .mention-option.active { background: var(--vscode-editorSuggestWidget-selectedBackground, var(--vscode-list-activeSelectionBackground)); color: var(--vscode-list-activeSelectionForeground); }
  .mention-note, .field-description { color: var(--vscode-descriptionForeground); font-size: 0.9em; padding: 2px 6px; }
  .composer-problem, .field-error, .elicitation-error { color: var(--vscode-errorForeground); font-size: 0.9em; }
  .elicitation {
    display: block; margin: 4px 8px; padding: 6px 8px; border-radius: 4px;
    border: 1px solid var(--vscode-focusBorder); background: var(--vscode-editorWidget-background);
  }
  .elicitation-title { font-weight: 600; margin-bottom: 4px; }
  .elicitation-message { white-space: pre-wrap; overflow-wrap: anywhere; }
  .elicitation-field { display: flex; flex-direction: column; gap: 2px; margin: 6px 0; border: none; padding: 0; }
  .elicitation-field input[type=text], .elicitation-field input[type=number], .elicitation-field input[type=email], .elicitation-field input[type=url], .elicitation-field input[type=date], .elicitation-field select {
    color: var(--vscode-input-foreground); background: var(--vscode-input-background); border: 1px solid var(--vscode-input-border, transparent); padding: 2px 4px;
  }
  .elicitation-field input[aria-invalid=true], .elicitation-field select[aria-invalid=true] { border-color: var(--vscode-inputValidation-errorBorder); }
  .elicitation-field.field-boolean { flex-direction: row; flex-wrap: wrap; align-items: center; gap: 6px; }
  .elicitation-field.field-boolean .field-extras { flex-basis: 100%; }
  .multi-option { display: flex; align-items: center; gap: 6px; }
  #elicitations { max-height: 60vh; overflow-y: auto; }
  .elicitation-url code { overflow-wrap: anywhere; }
  .elicitation-host { font-size: 1.1em; }
  .elicitation-buttons { display: flex; gap: 6px; margin-top: 6px; flex-wrap: wrap; }
  .edit-list { list-style: none; margin: 2px 0; padding: 0; }
  .edit-row { display: flex; align-items: center; gap: 6px; }
  .edit-path { flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-family: var(--vscode-editor-font-family); }
  .edit-added { color: var(--vscode-gitDecoration-addedResourceForeground); }
  .edit-removed { color: var(--vscode-gitDecoration-deletedResourceForeground); }
  .edit-nodiff, .edit-large { color: var(--vscode-descriptionForeground); }
  .entry.edits { margin: 4px 8px; }
  .approval-details { display: grid; grid-template-columns: max-content 1fr; gap: 2px 8px; margin: 4px 0; }
  .approval-details dd { margin: 0; } .approval-details pre { margin: 0; white-space: pre-wrap; }
  .approval-details.edit-details { display: block; } .approval-details .diff { max-height: 40vh; overflow: auto; }
`;
