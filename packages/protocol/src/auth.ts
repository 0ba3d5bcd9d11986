// Version 2, a harness's sign-in: its state (`harness/auth/status`, each listing's `auth`), the
// sign-in ceremony a client starts and cancels, and the notification when the state changes.
import {
  type Assert,
  AUTH_STATES,
  type AuthMethod,
  type AuthState,
  type Equals,
  type HarnessId,
  HarnessIdSchema,
} from '@reins/core';
import { z } from 'zod';

export const AuthMethodSchema = z.object({
  id: z.string().min(1),
  name: z.string().optional(),
  description: z.string().optional(),
});
type _MethodInSync = Assert<Equals<z.output<typeof AuthMethodSchema>, AuthMethod>>;

/** `harness/auth/status`, and each harness's `auth` in `harness/list`. */
export interface AuthStatus {
  harness: HarnessId;
  /** `signed_in`, `signed_out`, or `unknown` (the harness has no check Reins can run, or it failed). */
  status: AuthState;
  account?: string;
  methods?: AuthMethod[];
  message?: string;
  /** The command a user can run to sign in themselves. */
  command?: string;
  /** A sign-in ceremony in progress for this harness. */
  ceremonyId?: string;
}
export const AuthStatusSchema = z.object({
  harness: HarnessIdSchema,
  status: z.enum(AUTH_STATES),
  account: z.string().optional(),
  methods: z.array(AuthMethodSchema).optional(),
  message: z.string().optional(),
  command: z.string().optional(),
  ceremonyId: z.string().optional(),
});
type _AuthInSync = Assert<Equals<z.output<typeof AuthStatusSchema>, AuthStatus>>;

export interface AuthLoginParams {
  harness: HarnessId;
  /** One of the methods the harness advertises (ACP agents; Codex: `chatgpt`, `device`). */
  method?: string;
}
export const AuthLoginParamsSchema = z.object({ harness: HarnessIdSchema, method: z.string().min(1).optional() });
type _LoginParamsInSync = Assert<Equals<z.output<typeof AuthLoginParamsSchema>, AuthLoginParams>>;

export interface AuthCeremonyInfo {
  ceremonyId: string;
  /** Where the user signs in, as the harness printed or returned it. */
  url?: string;
  /** A code the user types at `url`, when the harness gives one. */
  userCode?: string;
  instructions: string;
}
export const AuthCeremonyInfoSchema = z.object({
  ceremonyId: z.string().min(1),
  url: z.string().optional(),
  userCode: z.string().optional(),
  instructions: z.string(),
});
type _CeremonyInSync = Assert<Equals<z.output<typeof AuthCeremonyInfoSchema>, AuthCeremonyInfo>>;

export const AuthCancelParamsSchema = z.object({ ceremonyId: z.string().min(1) });

/** Daemon -> every version 2 client: a harness's sign-in state changed (a ceremony ended, a re-probe saw it). */
export const HARNESS_AUTH_CHANGED = 'harness/authChanged';
export interface HarnessAuthChangedParams {
  harness: HarnessId;
  status: AuthState;
  account?: string;
}
export const HarnessAuthChangedParamsSchema = z.object({
  harness: HarnessIdSchema,
  status: z.enum(AUTH_STATES),
  account: z.string().optional(),
});
type _ChangedInSync = Assert<Equals<z.output<typeof HarnessAuthChangedParamsSchema>, HarnessAuthChangedParams>>;
