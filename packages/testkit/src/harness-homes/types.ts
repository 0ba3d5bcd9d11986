// The shape every per-harness home builder shares.
import type { ModelPrice } from '@reins/harnesses';
import type { HarnessBinary, HarnessId } from '../hermetic/binaries.js';
import type { TempHome } from '../hermetic/temp-home.js';

export type { ModelPrice };

export interface HarnessHomeOptions {
  /** The scripted model server, `http://127.0.0.1:PORT` (no trailing slash, no /v1). */
  modelServerUrl: string;
  /** The model the harness starts on; each builder has a default (`fake-model`, Gemini `gemini-2.5-flash`). */
  model?: string;
  /** More model ids to configure, so that there is a model to switch to. */
  extraModels?: string[];
  /**
   * One price for every configured model, for harnesses that work out the cost themselves from a
   * price table in their config (Pi). Absent: the fake models are configured free.
   */
  modelPrice?: ModelPrice;
  tempHome: TempHome;
  /** Defaults to harnessBinary(id) from harness-clis. */
  binary?: HarnessBinary;
}

export interface HarnessHome {
  id: HarnessId;
  /** The complete environment for the child: built from EMPTY, never merged with process.env. */
  env: Record<string, string>;
  /** Arguments after the binary's own (`binary.args`) that start the harness's headless protocol mode. */
  args: string[];
  /** HOME of the child. */
  home: string;
  /** The model the harness was configured to start on, then the extra ones. */
  models: string[];
  /** Config files this builder wrote (absolute paths), for debugging a failed test. */
  files: string[];
  /** A command prefix to run the binary under (OpenClaw: a private /tmp), or absent. */
  wrapper?: string[];
  /** Where a harness that listens itself can be reached (OpenClaw's gateway). */
  endpoint?: { url: string; token: string };
}

export type HarnessHomeBuilder = (options: HarnessHomeOptions) => Promise<HarnessHome>;

export const FAKE_API_KEY = 'test-key';
export const DEFAULT_FAKE_MODEL = 'fake-model';
