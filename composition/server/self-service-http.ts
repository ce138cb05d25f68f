import type { Clock, Log } from '../../core/index.js';
import { SandboxTokenVerifier } from '../../adapters/auth/sandbox-token-verifier.js';
import type { SelfServiceHttp } from '../../adapters/http/app/self-service-http.js';
import type { SelfService } from '../store/self-service.js';

/** Self-service sandboxes over HTTP: their tokens' verifier, and the routes' sign-up and end. */
export function selfServiceOverHttp(selfService: SelfService, clock: Clock, log: Log): { readonly verifier: SandboxTokenVerifier; readonly http: SelfServiceHttp } {
  const { sandboxes, options } = selfService;
  const registry = sandboxes.registry;
  const verifier = new SandboxTokenVerifier(registry, { ttlMs: options.ttlMs, maxPlants: options.maxPlants }, clock, log);
  return {
    verifier,
    http: {
      signupsPerHour: options.signupsPerHour,
      signUp: () => sandboxes.signUp(),
      end: async (name) => {
        // Stops the token on this server at once; other servers drop their verdicts within a second.
        verifier.forget(name);
        const ended = await sandboxes.end(name);
        verifier.forget(name);
        return ended;
      },
    },
  };
}
