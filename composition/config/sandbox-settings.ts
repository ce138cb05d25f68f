import { mixed } from 'yup';
import { SELF_SERVICE_DEFAULTS } from '../../core/index.js';
import { durationSchema, durationText } from './duration.js';
import { integer, onOff, optionalText, setting } from './setting.js';

/** Self-service sandboxes, as the command configures them: the `sandboxes` option (none while sign-up is off). */
export interface SandboxOptions {
  /** Sign-ups per client address per hour; undefined: no limit. */
  readonly signupsPerHour: number | undefined;
  readonly maxPlants: number;
  readonly ttlMs: number;
  /** A plants file (any import format) every new sandbox starts with. */
  readonly seedFile?: string | undefined;
}

export const sandboxSettings = {
  sandboxSignup: setting(
    { option: 'sandboxes (on: sign-up open)', flag: 'sandbox-signup', env: 'PLANT_STORE_SANDBOX_SIGNUP', default: 'off', help: 'on: anyone may POST /sandboxes for a sandbox of their own and its token' },
    onOff(),
  ),
  sandboxSignupLimit: setting(
    { option: 'sandboxes.signupsPerHour', flag: 'sandbox-signup-limit', env: 'PLANT_STORE_SANDBOX_SIGNUP_LIMIT', default: String(SELF_SERVICE_DEFAULTS.signupsPerHour), help: 'sign-ups per client address per hour; off for no limit' },
    mixed<number>()
      .transform((_, raw: string) => (raw.trim() === 'off' ? undefined : /^\d{1,7}$/.test(raw.trim()) && Number(raw.trim()) >= 1 ? Number(raw.trim()) : Number.NaN))
      .test('limit', 'must be an integer from 1 to 9999999, or off', (value) => value === undefined || !Number.isNaN(value)),
  ),
  sandboxMaxPlants: setting(
    { option: 'sandboxes.maxPlants', flag: 'sandbox-max-plants', env: 'PLANT_STORE_SANDBOX_MAX_PLANTS', default: String(SELF_SERVICE_DEFAULTS.maxPlants), help: 'plants a self-service sandbox may hold (403 40303 beyond)' },
    integer(1, 10_000_000),
  ),
  sandboxTtl: setting(
    { option: 'sandboxes.ttlMs', flag: 'sandbox-ttl', env: 'PLANT_STORE_SANDBOX_TTL', default: durationText(SELF_SERVICE_DEFAULTS.ttlMs), help: 'a self-service sandbox expires this long after its last request (its plants removed)' },
    durationSchema(1000, 365 * 24 * 3_600_000, 'at least 1 s'),
  ),
  sandboxSeed: setting(
    { option: 'sandboxes.seedFile', flag: 'sandbox-seed', env: 'PLANT_STORE_SANDBOX_SEED', default: '', help: 'plants file (JSON Lines, a JSON array or a json-server db.json) every new sandbox starts with' },
    optionalText(/^.+$/, 'must name a file'),
  ),
};

type Values = { [K in keyof typeof sandboxSettings]: ReturnType<(typeof sandboxSettings)[K]['parse']> };

/** The `sandboxes` option: none while sign-up is off. */
export function sandboxOptionsFrom(v: Values): { readonly value: SandboxOptions | undefined } {
  if (!v.sandboxSignup) return { value: undefined };
  return { value: { signupsPerHour: v.sandboxSignupLimit, maxPlants: v.sandboxMaxPlants, ttlMs: v.sandboxTtl!, ...(v.sandboxSeed !== undefined && { seedFile: v.sandboxSeed }) } };
}
