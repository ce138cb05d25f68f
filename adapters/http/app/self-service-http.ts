import type { SignedUp } from '../../../core/index.js';

/**
 * What the sandbox routes do: sign up (a new sandbox and its token) and end the caller's
 * sandbox. Free of Koa types: the library's declarations name it (ServerOptions), and its
 * users need no Koa typings.
 */
export interface SelfServiceHttp {
  signUp(): Promise<SignedUp>;
  /** Ends the sandbox now: its token stops working at once, its plants are removed. */
  end(sandbox: string): Promise<boolean>;
  /** Sign-ups per client address per hour; undefined: no limit. */
  readonly signupsPerHour: number | undefined;
}
