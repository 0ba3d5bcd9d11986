// Binary resolution for one harness, cached (docs/architecture/contract.md, "Turn rules"): the
// explicit path from the options, else discovery (REINS_<ID>_BIN, PATH, login shell, known folders);
// one fingerprint per harness object while the file it names is unchanged (an upgrade in place, a
// reinstall or a removal is seen at the next resolve: a long-lived harness, a daemon's warm pool or its
// catalog, does not keep serving the version it found first), forgotten after a failure so a later
// install is found. Health
// starts here: not installed (with the install hint), unhealthy when the version probe failed, else
// ready as far as the binary goes (an adapter adds its own auth probe on top).
import type { DiscoveredBinary, Discovery, Health } from '@reins/core';
import { ReinsError } from '@reins/core';
import { fileStamp } from '../binary-hashes.js';
import { type BinarySpec, fingerprintBinary, locateBinary, overrideVariable } from '../discovery.js';
import { failedProbeHealth } from '../discovery-health.js';
import { type HarnessOptions, mergeEnv } from '../options.js';

interface Resolved {
  binary: DiscoveredBinary;
  /** The file as it was when fingerprinted (fileStamp), or 'gone'. */
  stamp: string;
}

export class HarnessBinary {
  private discovered: Promise<Resolved> | undefined;

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

  /**
   * The fingerprinted binary; rejects with binary_not_found (and is retried next time). Found again when
   * the file it names changed since (its version and hash are then those of the new file).
   */
  async resolve(): Promise<DiscoveredBinary> {
    const cached = this.discovered;
    if (cached) {
      const found = await cached;
      if ((await fileStamp(found.binary.path)) === found.stamp) return found.binary;
      if (this.discovered === cached) this.discovered = undefined;
    }
    this.discovered ??= this.find();
    return (await this.discovered).binary;
  }

  private find(): Promise<Resolved> {
    const found = (async () => {
      const binary = await (this.options.binaryPath
        ? fingerprintBinary(this.options.binaryPath, this.spec, 'explicit', this.env())
        : locateBinary(this.spec, this.env()));
      return { binary, stamp: await fileStamp(binary.path) };
    })();
    return found.catch((error: unknown) => {
      this.discovered = undefined;
      throw error;
    });
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
