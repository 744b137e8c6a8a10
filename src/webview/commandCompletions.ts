// The `/` completion list of the composer: which of the agent's commands match what is typed, which
// one is active, and what choosing one does to the draft. No DOM here, so it is tested in plain Node;
// commandListView.ts draws it.

import type { AgentCommandView } from '../shared/agentState';

/** At most this many matches are listed (the agent may offer hundreds). */
export const maxShown = 50;

/** The command being typed: the draft starts with `/` and the caret is still inside that first word. */
export function slashQuery(draft: string, caret: number): string | undefined {
  if (!draft.startsWith('/') || caret < 1) return undefined;
  const typed = draft.slice(1, caret);
  if (/\s/.test(typed)) return undefined;
  return typed;
}

/** Commands whose name starts with the query first, then those containing it; case does not matter. */
export function matchCommands(commands: readonly AgentCommandView[], query: string): AgentCommandView[] {
  const q = query.toLowerCase();
  const starts: AgentCommandView[] = [];
  const contains: AgentCommandView[] = [];
  for (const c of commands) {
    const name = c.name.toLowerCase();
    if (name.startsWith(q)) starts.push(c);
    else if (q !== '' && name.includes(q)) contains.push(c);
  }
  return starts.concat(contains).slice(0, maxShown);
}

/** The draft with its first word replaced by `/name ` (what follows the word is kept), and the caret after it. */
export function insertCommand(draft: string, command: AgentCommandView): { text: string; caret: number } {
  const end = draft.search(/\s/);
  const rest = end < 0 ? '' : draft.slice(end).replace(/^[ \t]+/, '');
  const head = `/${command.name} `;
  return { text: head + rest, caret: head.length };
}

/** The command the draft names with nothing typed after it yet: its input hint is shown then. */
export function pendingHint(draft: string, commands: readonly AgentCommandView[]): AgentCommandView | undefined {
  const m = /^\/(\S+)\s*$/.exec(draft);
  if (!m) return undefined;
  return commands.find((c) => c.name === m[1] && c.hint !== undefined);
}

export class CommandCompletions {
  private items: AgentCommandView[] = [];
  private activeIndex = 0;
  private query: string | undefined;
  /** Escape closes the list until what is typed changes. */
  private dismissedFor: string | undefined;

  get open(): boolean {
    return this.items.length > 0;
  }

  get shown(): readonly AgentCommandView[] {
    return this.items;
  }

  get active(): number {
    return this.activeIndex;
  }

  get activeCommand(): AgentCommandView | undefined {
    return this.items[this.activeIndex];
  }

  /** After every edit or caret move; returns whether what is shown changed. */
  update(draft: string, caret: number, commands: readonly AgentCommandView[]): boolean {
    const query = slashQuery(draft, caret);
    const wasOpen = this.open;
    const before = this.activeCommand?.name;
    if (query === undefined || commands.length === 0 || query === this.dismissedFor) {
      if (query !== this.dismissedFor) this.dismissedFor = undefined;
      this.items = [];
      this.query = query;
      return wasOpen;
    }
    this.dismissedFor = undefined;
    const sameQuery = query === this.query;
    this.query = query;
    const items = matchCommands(commands, query);
    // The active entry stays on the same command while it still matches.
    const keep = sameQuery && before !== undefined ? items.findIndex((c) => c.name === before) : -1;
    this.items = items;
    this.activeIndex = keep >= 0 ? keep : 0;
    return wasOpen || this.open;
  }

  /** Arrow keys: wraps around at both ends. */
  move(delta: number): void {
    const n = this.items.length;
    if (n === 0) return;
    this.activeIndex = (((this.activeIndex + delta) % n) + n) % n;
  }

  select(index: number): void {
    if (index >= 0 && index < this.items.length) this.activeIndex = index;
  }

  dismiss(): void {
    this.dismissedFor = this.query;
    this.items = [];
  }

  /** Chooses the active command: the new draft and caret, and the list closes. */
  accept(draft: string): { text: string; caret: number } | undefined {
    const command = this.activeCommand;
    if (!command) return undefined;
    this.items = [];
    this.query = undefined;
    return insertCommand(draft, command);
  }
}
