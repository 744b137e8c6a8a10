// Transcript lines as the store writes them, for the search tests.

export const prompt = (text: string, source = 'user') => JSON.stringify({ type: 'userPrompt', turnId: 't1', text, source, at: 1 });
export const chunk = (text: string) => JSON.stringify({ type: 'agentUpdate', turnId: 't1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }, at: 1 });
export const toolOutput = (text: string) =>
  JSON.stringify({ type: 'agentUpdate', turnId: 't1', update: { sessionUpdate: 'tool_call_update', toolCallId: 'c1', content: [{ type: 'content', content: { type: 'text', text } }] }, at: 1 });
