/**
 * A collection (the driver's, or a stand-in) as a server that stops right after its plant
 * write sees it: nothing it inserts arrives; every other call goes through.
 */
export function failingInserts<T extends object>(collection: T): T {
  return new Proxy(collection, {
    get: (target, property, receiver) =>
      property === 'insertOne' || property === 'insertMany' ? () => Promise.reject(new Error('the server stopped here')) : Reflect.get(target, property, receiver),
  });
}
