import { jwtSettingsProblem, type JwtSettings } from '../adapters/auth/jwt-settings.js';
import { ConfigError, type SettingName } from './config.js';

/** The identity provider the configuration names: URL, issuer and audience, all or none. */
export type JwtConfig = Pick<JwtSettings, 'jwksUrl' | 'issuer' | 'audience' | 'scopeClaim'>;

const together: readonly SettingName[] = ['jwtJwksUrl', 'jwtIssuer', 'jwtAudience'];

/** Undefined when no JWT setting is given; throws ConfigError naming what is missing or wrong. */
export function jwtFrom(raw: Record<SettingName, string>, label: (name: SettingName) => string): JwtConfig | undefined {
  const given = together.filter((name) => raw[name].trim() !== '');
  if (given.length === 0 && raw.jwtScopeClaim === '') return undefined;
  const missing = together.filter((name) => !given.includes(name));
  if (missing.length > 0) {
    throw new ConfigError(`JWT access tokens need ${together.map(label).join(', ')} together; missing ${missing.map(label).join(', ')}`);
  }
  const config: JwtConfig = {
    jwksUrl: raw.jwtJwksUrl.trim(),
    issuer: raw.jwtIssuer.trim(),
    audience: raw.jwtAudience.trim(),
    ...(raw.jwtScopeClaim !== '' && { scopeClaim: raw.jwtScopeClaim.trim() }),
  };
  const problem = jwtSettingsProblem(config);
  if (problem !== undefined) throw new ConfigError(`${label('jwtJwksUrl')} and its companions: ${problem}`);
  return config;
}
