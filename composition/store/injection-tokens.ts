/**
 * tsyringe keys for the ports a store and a server are built from; the core defines the
 * port interfaces, composition the keys. A test or a server registers its own adapter under
 * a key before the store is assembled; every key left empty gets its default in
 * `registerStorePorts` (assemble-store.ts), the one place defaults are chosen.
 */
export const InjectionTokens = {
  /** `StorageOpener`: opens the store's storage. Default: what the storage option names. */
  Storage: Symbol('Storage'),
  /** The Log port. Default: standard error for errors (embedded); the server's JSON logger (server). */
  Log: Symbol('Log'),
  /** The Clock port the delivery engine reads. Default: the machine's. */
  Clock: Symbol('Clock'),
  /** `TransportFactory`: how webhook deliveries go out. Default: signed HTTP (WebhookSender). */
  WebhookTransport: Symbol('WebhookTransport'),
  /** The TokenVerifier port the HTTP adapter checks bearer tokens with (servers only). */
  TokenVerifier: Symbol('TokenVerifier'),
} as const;
