import { jwtSettingsProblem, type JwtSettings } from '../adapters/auth/jwt-settings.js';
import type { SettingValues } from './settings.js';

/** The identity provider the configuration names: URL, issuer and audience, all or none. */
export type JwtConfig = Pick<JwtSettings, 'jwksUrl' | 'issuer' | 'audience' | 'scopeClaim'>;

const together = ['jwtJwksUrl', 'jwtIssuer', 'jwtAudience'] as const;
type JwtSettingName = (typeof together)[number] | 'jwtScopeClaim';

/**
 * Undefined when no JWT setting is given; the settings when they work together; else one
 * line naming what is missing or wrong.
 */
export function jwtFrom(values: Pick<SettingValues, JwtSettingName>, label: (name: JwtSettingName) => string): JwtConfig | undefined | string {
  const given = together.filter((name) => values[name] !== undefined);
  if (given.length === 0 && values.jwtScopeClaim === undefined) return undefined;
  const missing = together.filter((name) => !given.includes(name));
  if (missing.length > 0) {
    return `JWT access tokens need ${together.map(label).join(', ')} together; missing ${missing.map(label).join(', ')}`;
  }
  const config: JwtConfig = {
    jwksUrl: values.jwtJwksUrl!,
    issuer: values.jwtIssuer!,
    audience: values.jwtAudience!,
    ...(values.jwtScopeClaim !== undefined && { scopeClaim: values.jwtScopeClaim }),
  };
  const problem = jwtSettingsProblem(config);
  return problem === undefined ? config : `${label('jwtJwksUrl')} and its companions: ${problem}`;
}
