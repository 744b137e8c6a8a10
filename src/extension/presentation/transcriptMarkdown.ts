// A session transcript as Markdown, for "Export Session as Markdown…" and each message's Copy. Pure: it
// reads view entries (secrets already masked as the transcript holds them) and yields text, one entry
// at a time, so a long session is written while it is read and never held as one string.
// Whatever an agent, a tool or a repository wrote is kept inert: fenced with a fence longer than any
// backtick run inside, HTML escaped, control characters dropped, an unclosed fence closed.

import type { EntryView, NoticeView, ToolCallView, ToolContentView } from '../../shared/sessionView';
import { TOOL_ENDED_TEXT } from '../../shared/sessionView';
import { describeCounts } from '../../shared/fileEdits';
import { diffLines } from '../../shared/lineDiff';
import { phaseTerms } from '../../shared/turnWords';
import { changedFilesLabel, type TurnChangesView } from '../../shared/turnChanges';
import { cutText } from '../../shared/textCut';
import { fenceFor } from '../../shared/codeFence';

export interface ExportHeader {
  title: string;
  sessionId: string;
  createdAt?: number;
  agent?: string;
  exportedAt: number;
}

export interface ExportLimits {
  /** Characters kept of one tool input, output, diff or message; the rest is cut with a note. */
  sectionChars: number;
}

export const exportLimits: ExportLimits = { sectionChars: 100_000 };

/** The Markdown source of a user or agent message (what Copy puts on the clipboard); none for other entries. */
export function messageMarkdown(entry: EntryView): string | undefined {
  if (entry.kind === 'user') return cleanText(entry.text);
  if (entry.kind === 'agent') return cleanText(entry.markdown);
  return undefined;
}

/** The whole transcript, in pieces: the header, then one piece per entry. */
export function* transcriptMarkdown(header: ExportHeader, entries: Iterable<EntryView>, limits: ExportLimits = exportLimits): Generator<string> {
  const facts = [
    `Session \`${inlineCode(header.sessionId)}\``,
    header.agent ? `agent ${inline(header.agent)}` : undefined,
    header.createdAt !== undefined ? `started ${timestamp(header.createdAt)}` : undefined,
    `exported ${timestamp(header.exportedAt)}`,
  ].filter(Boolean);
  yield `# ${inline(header.title) || 'Untitled session'}\n\n${facts.join(' · ')}\n`;
  for (const entry of entries) yield `\n${entryMarkdown(entry, limits)}`;
}

export function entryMarkdown(entry: EntryView, limits: ExportLimits = exportLimits): string {
  const at = timestamp(entry.at);
  switch (entry.kind) {
    case 'user': {
      const who = entry.source === 'wakeup' ? 'Wakeup prompt' : entry.source === 'resume' ? 'You (resume)' : 'You';
      const attached = entry.attachments?.length ? `\nAttached: ${entry.attachments.map((a) => inline(a.name)).join(', ')}\n` : '';
      return `## ${who} · ${at}\n\n${inertMarkdown(cut(entry.text, limits))}\n${attached}`;
    }
    case 'agent':
      return `## Agent · ${at}\n\n${inertMarkdown(cut(entry.markdown, limits))}\n`;
    case 'thought':
      return `### Thinking · ${at}\n\n${fenced(cut(entry.text, limits), 'text')}`;
    case 'toolCall':
      return toolCallMarkdown(entry.toolCall, at, limits);
    case 'plan':
      return `### Plan · ${at}\n\n${entry.items.map((i) => `- [${i.status === 'completed' ? 'x' : ' '}] ${inline(i.content)}${i.status === 'in_progress' ? ' (in progress)' : ''}`).join('\n')}\n`;
    case 'notice':
      return noticeMarkdown(entry.notice, at);
    case 'wakeup': {
      const tasks = entry.taskIds.map((id) => `\`${inlineCode(id)}\``).join(', ');
      return `### Background ${entry.taskIds.length === 1 ? 'task' : 'tasks'} ${tasks} woke the agent · ${at}\n${entry.text ? `\n${fenced(cut(entry.text, limits), 'text')}` : ''}`;
    }
    case 'edits':
      return `### Files changed · ${at}\n\n${entry.files.map((f) => `- \`${inlineCode(f.path)}\` ${describeCounts(f)}`).join('\n')}\n`;
    case 'checkpoint':
      return `### Checkpoint · ${at}\n\n${entry.restorable ? 'The files this turn changed can be restored to how they were before it (Vigil: Restore Checkpoint…).' : 'No restorable checkpoint for this turn.'}${entry.note ? ` ${inline(entry.note)}` : ''}\n${entry.changes ? turnChangesMarkdown(entry.changes) : ''}`;
  }
}

function turnChangesMarkdown(changes: TurnChangesView): string {
  const rows = changes.files.map((f) => `- \`${inlineCode(f.path)}\` ${f.change}${f.noDiff ? ` (${f.noDiff === 'binary' ? 'binary' : 'too large to compare'})` : ` +${f.added ?? 0} −${f.removed ?? 0}`}`);
  const more = changes.count - changes.files.length;
  return `\n${changedFilesLabel(changes.count)} +${changes.added} −${changes.removed}:\n\n${rows.join('\n')}${more > 0 ? `\n- … and ${more} more` : ''}\n`;
}

const statusText: Record<ToolCallView['status'], string> = {
  pending: 'pending', in_progress: 'running', completed: 'done', failed: 'failed', cancelled: 'cancelled', ended: TOOL_ENDED_TEXT,
};

function toolCallMarkdown(call: ToolCallView, at: string, limits: ExportLimits): string {
  const duration = call.startedAt !== undefined && call.endedAt !== undefined ? ` · ${Math.max(0, Math.round((call.endedAt - call.startedAt) / 1000))} s` : '';
  const parts = [`### Tool: ${inline(call.title)} · ${statusText[call.status]}${duration} · ${at}\n`];
  if (call.locations?.length) parts.push(`Locations: ${call.locations.map((l) => `\`${inlineCode(`${l.path}${l.line !== undefined ? `:${l.line}` : ''}`)}\``).join(', ')}\n`);
  if (call.rawInput !== undefined) parts.push(`Input:\n\n${fenced(cut(json(call.rawInput), limits), 'json')}`);
  for (const c of call.content) parts.push(toolContentMarkdown(c, limits));
  if (call.rawOutput !== undefined && !call.content.some((c) => c.type === 'text')) parts.push(`Output:\n\n${fenced(cut(json(call.rawOutput), limits), 'json')}`);
  return parts.join('\n');
}

function toolContentMarkdown(content: ToolContentView, limits: ExportLimits): string {
  switch (content.type) {
    case 'text':
      return `Output:\n\n${fenced(cut(content.text, limits), 'text')}`;
    case 'terminal':
      return `Terminal \`${inlineCode(content.terminalId)}\`\n`;
    case 'diff': {
      const old = content.oldText ?? '';
      const lines = diffLines(cut(old, limits), cut(content.newText, limits)).map((l) =>
        l.op === '…' ? `@@ ${l.skipped} unchanged line${l.skipped === 1 ? '' : 's'} @@` : `${l.op}${l.text}`,
      );
      return `Edit of \`${inlineCode(content.path)}\`${old === '' ? ' (new file)' : ''}:\n\n${fenced(lines.join('\n'), 'diff')}`;
    }
  }
}

/** A notice in the export: the view's label for its state, its summary, and the details the view folds. */
function noticeMarkdown(notice: NoticeView, at: string): string {
  const label = notice.kind === 'error' ? 'Error' : notice.kind === 'abort' || notice.kind === 'interrupted' ? phaseTerms.aborted : 'Notice';
  const text = notice.detail ? `${notice.text}\n${notice.detail}` : notice.text;
  const lines = cleanText(text).split('\n').map((l) => `> ${blockSafe(inline(l))}`);
  return `> **${label}** · ${at}\n>\n${lines.join('\n')}\n`;
}

/** Drops control characters (keeps tab and newline) and normalises line ends. */
export function cleanText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, '');
}

/** A fenced block that nothing inside can close: its fence is longer than any backtick run in `text`. */
export function fenced(text: string, info = ''): string {
  const body = cleanText(text);
  const fence = fenceFor(body);
  return `${fence}${info.replace(/[^\w+-]/g, '')}\n${body}${body.endsWith('\n') || body === '' ? '' : '\n'}${fence}\n`;
}

/**
 * Markdown from an agent or a prompt, kept readable but unable to change what follows it: raw HTML
 * (comments that would hide the rest, images that would load) is escaped outside code, and a fence
 * left open is closed so it cannot swallow the next entries.
 */
export function inertMarkdown(markdown: string): string {
  const out: string[] = [];
  let open: { ch: string; len: number } | undefined;
  for (const line of cleanText(markdown).split('\n')) {
    const fence = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (open) {
      if (fence && fence[1][0] === open.ch && fence[1].length >= open.len && fence[2].trim() === '') open = undefined;
      out.push(line);
    } else if (fence && !(fence[1][0] === '`' && fence[2].includes('`'))) {
      open = { ch: fence[1][0], len: fence[1].length };
      out.push(line);
    } else {
      out.push(escapeHtmlOutsideCodeSpans(line));
    }
  }
  if (open) out.push(open.ch.repeat(open.len));
  return out.join('\n').replace(/\n+$/, '');
}

/** `<` that could start a tag, comment or autolink becomes `&lt;`, except inside a code span on the line. */
function escapeHtmlOutsideCodeSpans(line: string): string {
  const parts = line.split(/(`+)/);
  let result = '';
  for (let k = 0; k < parts.length; k++) {
    if (k % 2 === 0) {
      result += parts[k].replace(/<(?=[A-Za-z/!?])/g, '&lt;');
      continue;
    }
    let close = k + 2;
    while (close < parts.length && parts[close] !== parts[k]) close += 2;
    if (close < parts.length) {
      result += parts.slice(k, close + 1).join('');
      k = close;
    } else {
      result += parts[k];
    }
  }
  return result;
}

/** One line of plain text in Markdown: no line breaks, Markdown and HTML punctuation escaped. */
export function inline(text: string): string {
  return cleanText(text).replace(/\s*\n\s*/g, ' ').replace(/[\\`*_[\]<>&~|]/g, (c) => `\\${c}`).trim();
}

/** Text for inside a single-backtick code span: no backticks or line breaks to end it early. */
function inlineCode(text: string): string {
  return cleanText(text).replace(/\n/g, ' ').replace(/`/g, 'ʼ');
}

/** An escaped line cannot start a block (heading, quote, list) either. */
function blockSafe(line: string): string {
  return line.replace(/^(\s*)([#>+=-]|\d+[.)])/, (_m, space: string, marker: string) => `${space}${marker.replace(/([#>+=\-.)])/, '\\$1')}`);
}

function cut(text: string, limits: ExportLimits): string {
  return cutText(text, limits.sectionChars, 'not exported');
}

function json(value: unknown): string {
  try {
    return typeof value === 'string' ? value : JSON.stringify(value, null, 2) ?? String(value);
  } catch (error) {
    return `(unprintable: ${error instanceof Error ? error.message : String(error)})`;
  }
}

function timestamp(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z') : 'unknown time';
}
