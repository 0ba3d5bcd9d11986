// Where a session goes (pure): a live worker whose labels include every label the session asks
// for (docs/architecture/contract.md: session/create `labels`) and that offers its harness; of
// those, the one with the fewest live sessions (then by id, so the choice is repeatable). A
// session that cannot be placed gets a sentence naming what is there instead.
import { ReinsError } from '@reins/core';
import { formatLabels, type Labels, labelsMatch } from './options.js';
import type { MemberRecord } from './records.js';

export interface PlacementRequest {
  harness: string;
  labels?: Labels;
  /** The session being resumed, for the message. */
  sessionId?: string;
}

export function chooseWorker(workers: readonly MemberRecord[], request: PlacementRequest): MemberRecord {
  const wanted = request.labels ?? {};
  const what = request.sessionId ? `session ${request.sessionId}` : `a new ${request.harness} session`;
  if (workers.length === 0) {
    throw new ReinsError(
      'process_exited',
      `No Reins worker is connected to the cluster, so ${what} has nowhere to run: start one with reins daemon --cluster <url> --role worker.`,
      { data: { reason: 'no_worker' } },
    );
  }
  const matching = workers.filter((worker) => labelsMatch(wanted, worker.labels));
  const fit = matching.filter((worker) => worker.harnesses.includes(request.harness));
  if (fit.length === 0) {
    const seen = workers.map((worker) => `${worker.id} (${formatLabels(worker.labels)})`).join(', ');
    const why =
      matching.length === 0
        ? `no worker has the labels ${formatLabels(wanted)}`
        : `no worker with the labels ${formatLabels(wanted)} offers the ${request.harness} harness`;
    throw new ReinsError('invalid_input', `Cannot place ${what}: ${why}. Workers: ${seen}.`, {
      data: { reason: 'no_matching_worker', labels: wanted, harness: request.harness },
    });
  }
  return [...fit].sort((a, b) => a.liveSessions - b.liveSessions || a.id.localeCompare(b.id))[0] as MemberRecord;
}
