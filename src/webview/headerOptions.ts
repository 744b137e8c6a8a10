// The session header's agent controls: the current model and mode (and reasoning level) as compact
// buttons that open the agent's values, an options button for the rest, and the context usage.

import { html, nothing, type TemplateResult } from 'lit';
import { currentChoiceName, type AgentOptionView, type AgentStateView, type AgentUsageView } from '../shared/agentState';

/** Categories shown as their own button in the header, in this order. */
const headerCategories: ReadonlyArray<{ category: string; icon: string }> = [
  { category: 'model', icon: 'chip' },
  { category: 'mode', icon: 'symbol-enum' },
  { category: 'thought_level', icon: 'lightbulb' },
];

export function headerOptions(agent: AgentStateView | undefined, pick: (configId?: string) => void): TemplateResult | typeof nothing {
  if (!agent || (agent.options.length === 0 && !agent.usage)) return nothing;
  const shown = headerCategories
    .map(({ category, icon }) => ({ option: agent.options.find((o) => o.category === category), icon }))
    .filter((x): x is { option: AgentOptionView; icon: string } => x.option !== undefined);
  const more = agent.options.length > shown.length;
  return html`<div id="agent-options" role="group" aria-label="Agent options">
    ${shown.map(({ option, icon }) => {
      const value = option.kind === 'select' ? currentChoiceName(option) : option.current ? 'on' : 'off';
      return html`<button class="agent-option" data-config-id=${option.id} data-category=${option.category ?? ''}
        title="${option.name}: ${value} — change" aria-label="${option.name}: ${value}. Change ${option.name}"
        @click=${() => pick(option.id)}><span class="codicon codicon-${icon}"></span><span class="agent-option-value">${value}</span></button>`;
    })}
    ${more
      ? html`<button class="agent-option agent-options-all" title="All options of the agent" aria-label="All options of the agent" @click=${() => pick()}>
          <span class="codicon codicon-settings"></span></button>`
      : nothing}
    ${agent.pending ? html`<span class="agent-option-pending" role="status"><span class="codicon codicon-sync codicon-modifier-spin"></span> ${agent.pending}</span>` : nothing}
    ${agent.usage ? usageView(agent.usage) : nothing}
  </div>`;
}

function usageView(u: AgentUsageView): TemplateResult {
  const percent = u.size > 0 ? Math.min(999, Math.round((u.used / u.size) * 100)) : undefined;
  const cost = u.cost ? ` · ${formatCost(u.cost.amount, u.cost.currency)}` : '';
  const text = `${formatTokens(u.used)} / ${formatTokens(u.size)}${percent !== undefined ? ` (${percent}%)` : ''}${cost}`;
  const full = `Context: ${u.used.toLocaleString('en-US')} of ${u.size.toLocaleString('en-US')} tokens${cost ? `; cost so far ${formatCost(u.cost!.amount, u.cost!.currency)}` : ''}`;
  return html`<span id="agent-usage" class="agent-usage ${percent !== undefined && percent >= 90 ? 'near-full' : ''}" title=${full} aria-label=${full}>
    <span class="codicon codicon-dashboard"></span> ${text}</span>`;
}

/** 950 → "950", 12_345 → "12.3k", 200_000 → "200k", 1_500_000 → "1.5M". */
export function formatTokens(n: number): string {
  if (n < 1_000) return String(n);
  if (n < 1_000_000) return `${trim(n / 1_000)}k`;
  return `${trim(n / 1_000_000)}M`;
}

function trim(x: number): string {
  return (x >= 100 ? Math.round(x).toString() : x.toFixed(1)).replace(/\.0$/, '');
}

export function formatCost(amount: number, currency: string): string {
  if (/^[A-Z]{3}$/.test(currency)) {
    try {
      return new Intl.NumberFormat('en-US', { style: 'currency', currency, maximumFractionDigits: amount < 1 ? 4 : 2 }).format(amount);
    } catch {
      // Not a currency Intl knows: shown as number and unit below.
    }
  }
  return `${amount.toFixed(amount < 1 ? 4 : 2)} ${currency}`;
}
