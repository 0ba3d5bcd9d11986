// Binary resolution for one harness, cached (docs/architecture/contract.md, "Turn rules"): the
// explicit path from the options, else discovery (REINS_<ID>_BIN, PATH, login shell, known folders);
// one fingerprint per harness object, forgotten after a failure so a later install is found. Health
// starts here: not installed (with the install hint), unhealthy when the version probe failed, else
// ready as far as the binary goes (an adapter adds its own auth probe on top).
import type { DiscoveredBinary, Discovery, Health } from '@reins/core';
import { ReinsError } from '@reins/core';
import { type BinarySpec, fingerprintBinary, locateBinary, overrideVariable } from '../discovery.js';
import { failedProbeHealth } from '../discovery-health.js';
import { type HarnessOptions, mergeEnv } from '../options.js';

export class HarnessBinary {
  private discovered: Promise<DiscoveredBinary> | undefined;

  /** @param install the command that installs the harness, for hints: 'npm install -g @ampcode/cli'. */
  constructor(
    readonly spec: BinarySpec,
    private readonly options: Pick<HarnessOptions, 'binaryPath' | 'baseEnv'>,
    readonly install: string,
  ) {}

  /** The child's environment: the user's (or the options' base) plus the additions. */
  env(additions?: Record<string, string>): Record<string, string> {
    return mergeEnv(this.options.baseEnv, additions);
  }

  /** The fingerprinted binary; rejects with binary_not_found (and is retried next time). */
  resolve(): Promise<DiscoveredBinary> {
    this.discovered ??= (
      this.options.binaryPath
        ? fingerprintBinary(this.options.binaryPath, this.spec, 'explicit', this.env())
        : locateBinary(this.spec, this.env())
    ).catch((error: unknown) => {
      this.discovered = undefined;
      throw error;
    });
    return this.discovered;
  }

  async discover(): Promise<Discovery> {
    try {
      return { found: true, binary: await this.resolve() };
    } catch (error) {
      return {
        found: false,
        searched: this.options.binaryPath ? [this.options.binaryPath] : [overrideVariable(this.spec.id), 'PATH'],
        hint: `${ReinsError.from(error, 'binary_not_found').message} Install it with \`${this.install}\`.`,
      };
    }
  }

  /** Health as far as the binary goes: not_installed, unhealthy (its version probe failed) or ready. */
  async health(): Promise<Health> {
    const discovery = await this.discover();
    if (!discovery.found) return { status: 'not_installed', message: discovery.hint, fix: this.install };
    return failedProbeHealth(discovery.binary) ?? { status: 'ready', binary: discovery.binary };
  }
}
