// Transcript records are redacted before they are written: a secret split across chunks of a stream is caught
// whatever comes between its halves (a thought, a tool call, a notice, a new message id), and no text is lost.

import { strict as assert } from 'node:assert';
import { REDACTED, Redactor } from '../../../src/extension/core/common/redactor';
import { RELEASED_AT_INTERRUPTION, RecordRedaction } from '../../../src/extension/core/store/recordRedaction';
import type { RecordInput } from '../../../src/extension/core/store/transcriptRecords';

const KEY = 'sk-test-0123456789abcdef';

function chunk(kind: string, text: string, messageId = 'm1'): RecordInput {
  return { type: 'agentUpdate', turnId: 't1', update: { sessionUpdate: kind, messageId, content: { type: 'text', text } } };
}

const message = (text: string, messageId?: string) => chunk('agent_message_chunk', text, messageId);
const toolCall: RecordInput = { type: 'agentUpdate', turnId: 't1', update: { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Read notes.txt', status: 'pending' } };
const turnEnded: RecordInput = { type: 'turnEnded', turnId: 't1', reason: 'completed' };

/** What comes between the two halves of the secret. */
const between: Record<string, RecordInput[]> = {
  'a thought chunk': [chunk('agent_thought_chunk', 'thinking it over')],
  'a tool call': [toolCall],
  'a notice': [{ type: 'notice', turnId: 't1', level: 'info', text: 'Retrying in 8 s (2/5) after HTTP 429.' }],
  'a message id change': [],
};

function written(records: RecordInput[]): RecordInput[] {
  const redaction = new RecordRedaction(redactorWith(KEY));
  return records.flatMap((r) => {
    const out = redaction.apply(r);
    return Array.isArray(out) ? out : [out];
  });
}

function redactorWith(...secrets: string[]): Redactor {
  const r = new Redactor();
  r.add(secrets);
  return r;
}

function textOf(records: RecordInput[], kind: string): string {
  return records
    .filter((r) => r.type === 'agentUpdate' && r.update.sessionUpdate === kind)
    .map((r) => (r.type === 'agentUpdate' ? (r.update.content as { text: string }).text : ''))
    .join('');
}

describe('transcript record redaction', () => {
  for (const [name, middle] of Object.entries(between)) {
    it(`a secret split by ${name} is cut at every split point, and no other text is lost`, () => {
      for (let cut = 1; cut < KEY.length; cut += 1) {
        const records = [message(`my key is ${KEY.slice(0, cut)}`), ...middle, message(`${KEY.slice(cut)} — keep it.`, name === 'a message id change' ? 'm2' : 'm1'), turnEnded];
        const out = written(records);
        const shown = textOf(out, 'agent_message_chunk');
        // A tail of a few characters is shown where it stands (it is most often a word's end); never more of a key.
        const released = cut <= RELEASED_AT_INTERRUPTION && middle.length > 0 ? KEY.slice(0, cut) : '';
        assert.equal(shown, `my key is ${released}${REDACTED} — keep it.`, `cut at ${cut}`);
        for (let i = 0; i + RELEASED_AT_INTERRUPTION + 1 <= KEY.length; i += 1) {
          const piece = KEY.slice(i, i + RELEASED_AT_INTERRUPTION + 1);
          assert.ok(!JSON.stringify(out).includes(piece), `cut at ${cut}: "${piece}" shown in ${JSON.stringify(out)}`);
        }
        assert.deepEqual(out.filter((r) => !(r.type === 'agentUpdate' && r.update.sessionUpdate === 'agent_message_chunk')), [...middle, turnEnded]);
        assert.equal(out[out.length - 1], turnEnded, 'the turn still ends last');
      }
    });
  }

  it('a word’s end that looks like a key’s start stays before the tool call that follows it', () => {
    const out = written([message('Here are the results'), toolCall, message('Done.'), turnEnded]);
    const texts = out.map((r) => (r.type === 'agentUpdate' ? (r.update.content as { text?: string } | undefined)?.text ?? r.update.sessionUpdate : r.type));
    assert.deepEqual(texts, ['Here are the result', 's', 'tool_call', 'Done.', 'turnEnded']);
  });

  it('a longer held tail waits for its stream across other records and goes out before the turn ends, in its message', () => {
    const out = written([message('the prefix is sk-test-0', 'm1'), toolCall, chunk('agent_thought_chunk', 'hmm'), turnEnded]);
    const shape = out.map((r) => (r.type === 'agentUpdate' ? `${String(r.update.sessionUpdate)}:${String(r.update.messageId ?? '')}:${(r.update.content as { text?: string } | undefined)?.text ?? ''}` : r.type));
    assert.deepEqual(shape, ['agent_message_chunk:m1:the prefix is ', 'tool_call::', 'agent_thought_chunk:m1:hmm', 'agent_message_chunk:m1:sk-test-0', 'turnEnded']);
  });

  it('two streams of a turn each hold their own tail: a secret split in the thoughts and one in the message', () => {
    const out = written([
      chunk('agent_thought_chunk', `the user's key is ${KEY.slice(0, 10)}`),
      message(`Your key: ${KEY.slice(0, 12)}`),
      chunk('agent_thought_chunk', `${KEY.slice(10)}, careful`),
      toolCall,
      message(`${KEY.slice(12)}.`),
      turnEnded,
    ]);
    assert.equal(textOf(out, 'agent_thought_chunk'), `the user's key is ${REDACTED}, careful`);
    assert.equal(textOf(out, 'agent_message_chunk'), `Your key: ${REDACTED}.`);
    assert.ok(!JSON.stringify(out).includes(KEY.slice(3, 10)));
  });

  it('the other fields of a chunk are redacted too, and a redactor without secrets changes nothing', () => {
    const out = written([{ type: 'agentUpdate', turnId: 't1', update: { sessionUpdate: 'agent_message_chunk', _meta: { echoed: KEY }, content: { type: 'text', text: 'hi', annotations: { note: KEY } } } }]);
    assert.deepEqual(out, [{ type: 'agentUpdate', turnId: 't1', update: { sessionUpdate: 'agent_message_chunk', _meta: { echoed: REDACTED }, content: { type: 'text', text: 'hi', annotations: { note: REDACTED } } } }]);
    const record = message('sk-test');
    assert.equal(new RecordRedaction(new Redactor()).apply(record), record);
  });
});
