// The streaming input of one long-lived `query()`: the adapter pushes one user message per Reins
// turn, the SDK pulls them. Reins holds follow-ups itself until the running turn ends (Claude Code
// would otherwise fold a message sent mid-turn into the running turn), so this never buffers more
// than the message of the turn that is starting. It is core's single-consumer AsyncQueue (the SDK
// is the one consumer), named for what it is here.
export { AsyncQueue as InputChannel } from '@reins/core';
