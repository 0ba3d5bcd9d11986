// The `user_message` item of a turn (docs/architecture/contract.md, "Turn rules"): started then
// completed for input the harness took, completed `cancelled` alone for a turn that never ran.
import type { SessionEventStream, TurnInput, UserMessageOrigin } from '@reins/core';

export function emitUserMessage(
  stream: SessionEventStream,
  message: {
    id: string;
    input: TurnInput;
    clientMessageId: string | undefined;
    status: 'completed' | 'cancelled';
    origin: UserMessageOrigin | undefined;
  },
): void {
  const { id, input, clientMessageId, status, origin } = message;
  const item = {
    kind: 'user_message' as const,
    id,
    text: input.text,
    ...(input.images?.length ? { images: input.images } : {}),
    ...(clientMessageId ? { clientMessageId } : {}),
    ...(origin ? { origin } : {}),
  };
  if (status === 'completed') stream.emit({ type: 'item.started', item: { ...item, status: 'running' } });
  stream.emit({ type: 'item.completed', item: { ...item, status } });
}
