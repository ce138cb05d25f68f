import { JWT_DEFAULTS, jwtSettingsProblem, type JwtSettings } from '../../adapters/auth/jwt-settings.js';
import type { StaticToken } from '../../adapters/auth/static-token-rules.js';
import { labelOf, optionalText, setting, type Setting } from './setting.js';
import { ConfigError } from './config-error.js';
import { staticTokensFrom } from './static-tokens.js';

/** Who may call: static tokens (from a variable and a file) and an identity provider's JWTs. */
export interface AccessOptions {
  readonly tokens?: readonly StaticToken[];
  /** A file with one token per line; read when the server is built. */
  readonly tokensFile?: string;
  readonly jwt?: Pick<JwtSettings, 'jwksUrl' | 'issuer' | 'audience' | 'scopeClaim' | 'sandboxClaim'>;
}

const jwtText = (option: string, flag: string, env: string, help: string, shownDefault?: string) =>
  setting({ option: `access.jwt.${option}`, flag, env, default: '', ...(shownDefault !== undefined && { shownDefault }), help }, optionalText(/^.+$/, 'must not be empty'));

/** Tokens have no flag on purpose: a command line is visible to every user of the machine (ps), the environment and files are not. */
export const accessSettings = {
  tokens: {
    option: 'access.tokens',
    flag: '',
    env: 'PLANT_STORE_TOKENS',
    default: '',
    help: 'comma-separated bearer tokens, each optionally followed by scopes (no flag: command lines are public)',
    // Checked by the static-token adapter's own rules; a refusal names the position, never the token.
    // An empty variable is unset (a token is generated); blanks, or an empty entry, are refused.
    parse: (text: string): StaticToken[] | undefined => {
      if (text === '') return undefined;
      const entries = text.split(',');
      if (entries.every((entry) => entry.trim() === '')) throw new ConfigError('holds only blanks; give at least one token, or leave it empty to have one generated');
      return staticTokensFrom(entries);
    },
  } satisfies Setting<StaticToken[] | undefined>,
  tokensFile: setting(
    { option: 'access.tokensFile', flag: 'tokens-file', env: 'PLANT_STORE_TOKENS_FILE', default: '', help: 'file with one bearer token per line, optionally followed by scopes' },
    optionalText(/^.+$/, 'must name a file'),
  ),
  jwtJwksUrl: jwtText('jwksUrl', 'jwt-jwks-url', 'PLANT_STORE_JWT_JWKS_URL', "accept JWTs signed by the keys at this URL (the identity provider's JWKS)"),
  jwtIssuer: jwtText('issuer', 'jwt-issuer', 'PLANT_STORE_JWT_ISSUER', 'the iss claim JWTs must carry (needed with the JWKS URL)'),
  jwtAudience: jwtText('audience', 'jwt-audience', 'PLANT_STORE_JWT_AUDIENCE', 'the aud claim JWTs must carry (needed with the JWKS URL)'),
  jwtScopeClaim: jwtText('scopeClaim', 'jwt-scope-claim', 'PLANT_STORE_JWT_SCOPE_CLAIM', 'claim holding the scopes (the scp list is read too)', JWT_DEFAULTS.scopeClaim),
  jwtSandboxClaim: jwtText('sandboxClaim', 'jwt-sandbox-claim', 'PLANT_STORE_JWT_SANDBOX_CLAIM', 'claim naming the sandbox of the holder (e.g. org_id or sub); a JWT without it gets 403 40302; unset: the default sandbox'),
};

type Values = { [K in keyof typeof accessSettings]: ReturnType<(typeof accessSettings)[K]['parse']> };
const together = ['jwtJwksUrl', 'jwtIssuer', 'jwtAudience'] as const;

/** The `access` options, or why the values disagree: the identity provider's three settings go together. */
export function accessOptionsFrom(v: Values): { readonly value: AccessOptions } | string {
  const access = { ...(v.tokens !== undefined && { tokens: v.tokens }), ...(v.tokensFile !== undefined && { tokensFile: v.tokensFile }) };
  const given = together.filter((name) => v[name] !== undefined);
  if (given.length === 0 && v.jwtScopeClaim === undefined && v.jwtSandboxClaim === undefined) return { value: access };
  const label = (name: keyof typeof accessSettings) => labelOf(accessSettings[name]);
  const missing = together.filter((name) => !given.includes(name));
  if (missing.length > 0) return `JWT access tokens need ${together.map(label).join(', ')} together; missing ${missing.map(label).join(', ')}`;
  const jwt = { jwksUrl: v.jwtJwksUrl!, issuer: v.jwtIssuer!, audience: v.jwtAudience!, ...(v.jwtScopeClaim !== undefined && { scopeClaim: v.jwtScopeClaim }), ...(v.jwtSandboxClaim !== undefined && { sandboxClaim: v.jwtSandboxClaim }) };
  const problem = jwtSettingsProblem(jwt);
  return problem === undefined ? { value: { ...access, jwt } } : `${label('jwtJwksUrl')} and its companions: ${problem}`;
}
