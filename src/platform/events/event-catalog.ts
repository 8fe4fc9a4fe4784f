import type { TSchema } from '@sinclair/typebox';
import { EVENT_TYPES, type EventType } from './event.schemas.js';

/**
 * One event type as the module that records it declares it (`AppModule.events`): the schema of
 * its `data.object`, which is the object as the API serves it, and when it is sent. The OpenAPI
 * document's webhooks and its `Event` union are made from these declarations.
 */
export interface EventDeclaration {
  type: EventType;
  /** The schema the API serves the object with; its `$id` names it in the OpenAPI document. */
  object: TSchema;
  /** When the event is sent and what the object shows then. */
  description: string;
}

/** The declarations of the event types whose `data.object` is `object`, each with its description. */
export function eventsOf(object: TSchema, descriptions: Partial<Record<EventType, string>>): EventDeclaration[] {
  return Object.entries(descriptions).map(([type, description]) => ({
    type: type as EventType,
    object,
    description: description as string,
  }));
}

/**
 * Every event type's declaration, in `EVENT_TYPES` order. Throws when a type is declared by no
 * module or by two, or with an object schema that has no `$id` to name it by: a service must
 * document every event it can send, once.
 */
export function eventCatalog(modules: readonly { name: string; events?: readonly EventDeclaration[] }[]): EventDeclaration[] {
  const declared = new Map<EventType, EventDeclaration & { module: string }>();
  for (const module of modules) {
    for (const declaration of module.events ?? []) {
      const earlier = declared.get(declaration.type);
      if (earlier) throw new Error(`event type ${declaration.type} is declared by modules ${earlier.module} and ${module.name}`);
      if (typeof declaration.object.$id !== 'string') throw new Error(`event type ${declaration.type}: its object schema has no $id`);
      declared.set(declaration.type, { ...declaration, module: module.name });
    }
  }
  return EVENT_TYPES.map((type) => {
    const declaration = declared.get(type);
    if (!declaration) throw new Error(`event type ${type} is declared by no module (AppModule.events)`);
    const { module: _module, ...rest } = declaration;
    return rest;
  });
}
