// Fuzzing recorded fixtures: the harness's frames (dir "out") are damaged, what Reins itself sent (dir
// "in") stays as recorded and in order, since it marks where the adapter started turns.
import type { FixtureFrame } from '../recorder/fixture.js';
import { type Mutation, type MutationOptions, mutateSequence } from './mutate.js';
import type { Random } from './random.js';

export interface MutatedRecording {
  frames: FixtureFrame[];
  mutations: Mutation[];
}

export function mutateRecording(
  frames: readonly FixtureFrame[],
  random: Random,
  options: Omit<MutationOptions, 'isMutable'> = {},
): MutatedRecording {
  const result = mutateSequence(
    frames.map((entry) => entry.frame),
    random,
    { ...options, isMutable: (_frame, index) => frames[index]?.dir === 'out' },
  );
  return {
    frames: result.frames.map((frame, position) => {
      const origin = frames[result.origins[position] as number] as FixtureFrame;
      return { ...origin, frame };
    }),
    mutations: result.mutations,
  };
}
