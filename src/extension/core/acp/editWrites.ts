// A write of the agent with its diff kept: the file's content before is captured (bounded), the person reviews the
// diff first when `vigil.edits.review` is `ask` (while the writes waiting stay within the journal's bound), the file
// must still hold what they saw, and the write is then recorded for the tool's card and the turn's change list.
// Without a journal a write is just written.

import type { FileEditView } from '../../../shared/fileEdits';
import { VigilError } from '../common/errors';
import type { ClientOp } from './clientGrants';
import { captureBefore, sameSide } from './editCapture';
import type { EditJournal, EditProposal } from './editJournal';
import type { ClientOpVerdict, PermissionGate } from './permissionGate';
import type { Location, WorkspaceFs } from './workspaceFs';

export interface EditWriteRequest {
  sessionId: string;
  where: Location;
  content: string;
  op: Extract<ClientOp, { kind: 'edit' }>;
  /** The policy's check when the write is not reviewed (it may ask its own question). */
  authorize(): Promise<void>;
  /** A review's question, hooked to the turn like any approval. */
  review(gate: PermissionGate, proposal: EditProposal): Promise<ClientOpVerdict>;
  /** The write was made and kept: record it. */
  recorded(views: { edit: FileEditView; file: FileEditView }): void;
  /** The prompt's scope: all of its edits of one file are summed up together. */
  turn: object;
}

/** Largest file whose content before a write is read for the diff (larger ones are written without one). */
export const maxCapturedBytes = 2_000_000;

export async function writeWithDiff(workspace: WorkspaceFs, gate: PermissionGate, journal: EditJournal | undefined, r: EditWriteRequest): Promise<void> {
  const before = journal ? await captureBefore(r.where, maxCapturedBytes) : undefined;
  if (!journal || !before) {
    await r.authorize();
    await workspace.write(r.where, r.content);
    return;
  }
  const review = gate.reviewsEdits;
  // Refused here (nothing kept, nothing written) when the writes waiting for review fill their bound.
  const proposal = journal.propose(r.sessionId, workspace.root, r.where.real, before, r.content, { review });
  let written = false;
  try {
    if (review) {
      const verdict = await r.review(gate, proposal);
      if (!verdict.allowed) throw new VigilError('PERMISSION_DENIED', verdict.reason);
      // What the person accepted is a change of what they saw: a file changed meanwhile is not overwritten.
      const now = await captureBefore(r.where, maxCapturedBytes);
      if (!now || !sameSide(now, before)) {
        throw new VigilError('INVALID_INPUT', `${proposal.edit.view.path} changed while its edit waited for review, so it was not written. Read it again and make the edit anew.`);
      }
    } else {
      await r.authorize();
    }
    await workspace.write(r.where, r.content);
    written = true;
  } finally {
    if (!written) journal.discard(proposal);
  }
  r.recorded(journal.commit(proposal, r.turn));
}
