/** tsyringe keys for the ports; the core defines the interfaces, composition the keys. */
export const InjectionTokens = {
  PlantRepository: Symbol('PlantRepository'),
  EventPublisher: Symbol('EventPublisher'),
} as const;
