// The Codex requests no Reins harness can honour through the Session API, answered with a sentence a
// user can act on and the stable Reins code `unsupported_capability` (-32600, the code as `data.code`)
// instead of Codex's bare "unknown variant": the TUI shows the message where the feature was asked for
// (/review, and saving a /model pick as the default; /compact where the harness cannot: thread-compact.ts).
import { ReinsError } from '@reins/core';
import { RpcError } from './connection.js';
import { requiredString } from './requests.js';
import { RPC } from './wire.js';

type Params = Record<string, unknown>;

/** Handlers by method; `isOpen` says whether a thread is open on this bridge. */
export function refusalHandlers(
  harnessOf: () => string,
  isOpen: (threadId: string) => boolean,
): Record<string, (params: Params) => Promise<never>> {
  const openThread = (params: Params): void => {
    const threadId = requiredString(params, 'threadId');
    // Codex 0.169.0: "thread not found: <id>".
    if (!isOpen(threadId)) throw new RpcError(RPC.invalidRequest, `thread not found: ${threadId}`, { threadId });
  };
  return {
    // The TUI saves a /model pick as its default here; the thread has switched already (thread/settings/update).
    'config/batchWrite': async () => {
      throw new ReinsError(
        'unsupported_capability',
        'The Reins bridge keeps no Codex config file, so nothing was saved; the thread keeps the model you picked (start the bridge with -c model=<id> to change its default).',
        { harness: harnessOf(), operation: 'config/batchWrite' },
      );
    },
    // Codex's review mode (its own review prompt, entered and exited review items) has no Reins equivalent.
    'review/start': async (params) => {
      openThread(params);
      const harness = harnessOf();
      throw new ReinsError(
        'unsupported_capability',
        `Review mode (/review) is not available through Reins in front of the ${harness} harness; ask for a review in an ordinary message instead.`,
        { harness, operation: 'review/start' },
      );
    },
  };
}

// The handlers' names alone: which harness and which threads play no part in them.
const refusedNames = Object.keys(refusalHandlers(String, () => false));
/** Methods answered only with a refusal: never named among the served ones (errors.ts unknownMethodError). */
export const REFUSED_METHODS: ReadonlySet<string> = new Set(refusedNames);
