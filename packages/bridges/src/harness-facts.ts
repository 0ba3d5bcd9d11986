// What both bridges ask of the harness once per process and keep: its capability matrix (which
// methods and options are served) and its model list. A harness that cannot answer (or not in
// time) has neither; that is logged, and each bridge serves what it can without them.
import type { CapabilityKey, CapabilityMatrix, Harness, ModelInfo } from '@reins/core';
import { isImplemented, withDeadline } from './lifecycle.js';

export class HarnessFacts {
  private matrix: Promise<CapabilityMatrix | undefined> | undefined;
  private models: Promise<ModelInfo[] | undefined> | undefined;

  constructor(
    private readonly harness: Harness,
    private readonly timeoutMs: number,
    private readonly log: (message: string) => void,
  ) {}

  capabilities(): Promise<CapabilityMatrix | undefined> {
    this.matrix ??= withDeadline(this.harness.capabilities(), this.timeoutMs, 'capabilities').catch(
      (error: unknown) => {
        this.log(`could not read the ${this.harness.id} capabilities: ${String(error)}`);
        return undefined;
      },
    );
    return this.matrix;
  }

  async implements(key: CapabilityKey): Promise<boolean> {
    return isImplemented(await this.capabilities(), key);
  }

  /** The harness's model list; a harness without one (or that fails) has none. */
  catalog(): Promise<ModelInfo[] | undefined> {
    this.models ??= (async () => {
      if (!this.harness.models) return undefined;
      try {
        return await withDeadline(this.harness.models(), this.timeoutMs, 'models');
      } catch (error) {
        this.log(`the ${this.harness.id} model list is unavailable: ${String(error)}`);
        return undefined;
      }
    })();
    return this.models;
  }
}
