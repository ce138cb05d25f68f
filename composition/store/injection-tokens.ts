/**
 * tsyringe keys for what the composition root wires; the core defines the port interfaces,
 * composition the keys. A test swaps an adapter by registering its own under a key.
 */
export const InjectionTokens = {
  PlantRepository: Symbol('PlantRepository'),
  EventPublisher: Symbol('EventPublisher'),
  /** `() => Promise<OpenStorage>`: opens the store's storage. */
  Storage: Symbol('Storage'),
  /** The server's logger (request lines, start-up, failures). */
  Log: Symbol('Log'),
  /** The TokenVerifier port the HTTP adapter checks bearer tokens with. */
  TokenVerifier: Symbol('TokenVerifier'),
} as const;
