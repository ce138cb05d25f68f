import 'reflect-metadata';
import { container as rootContainer, instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import {
  CreatePlant,
  DeletePlant,
  GetPlant,
  ListPlants,
  type EventPublisher,
  type PlantRepository,
  type Subscriptions,
} from '../../core/index.js';
import { InjectionTokens } from './injection-tokens.js';

export interface Ports {
  readonly repository: PlantRepository;
  readonly events: EventPublisher;
  /** Who gets webhooks of which changes; none when omitted. */
  readonly subscriptions?: Subscriptions | undefined;
}

/**
 * One child container per store, so two stores in a process share nothing. Core classes
 * carry no decorators: they are registered here with factories.
 */
export function buildContainer({ repository, events, subscriptions }: Ports): DependencyContainer {
  const container = rootContainer.createChildContainer();
  container.register(InjectionTokens.PlantRepository, { useValue: repository });
  container.register(InjectionTokens.EventPublisher, { useValue: events });
  const plants = (c: DependencyContainer) => c.resolve<PlantRepository>(InjectionTokens.PlantRepository);
  const publisher = (c: DependencyContainer) => c.resolve<EventPublisher>(InjectionTokens.EventPublisher);
  container.register(ListPlants, { useFactory: instanceCachingFactory((c) => new ListPlants(plants(c))) });
  container.register(GetPlant, { useFactory: instanceCachingFactory((c) => new GetPlant(plants(c))) });
  container.register(CreatePlant, {
    useFactory: instanceCachingFactory((c) => new CreatePlant(plants(c), publisher(c), subscriptions)),
  });
  container.register(DeletePlant, {
    useFactory: instanceCachingFactory((c) => new DeletePlant(plants(c), publisher(c), subscriptions)),
  });
  return container;
}
