import type { RequestSigner } from '../fetch/index.js';
import { KeyCache, signRequest } from '../signatures/index.js';
import type { ActorStore } from './actor.store.js';

/**
 * Signs the guarded client's requests with the instance actor's key (authorized-fetch peers refuse
 * unsigned GETs). The key is read once and kept parsed.
 */
export function instanceActorSigner(
  actors: ActorStore,
  instanceActorId: () => Promise<string>,
): RequestSigner {
  const keyCache = new KeyCache(4);
  let key: Promise<{ keyId: string; privateKeyPem: string }> | undefined;
  return async (request) => {
    key ??= instanceActorId().then((id) => actors.ensureKeys(id));
    const { keyId, privateKeyPem } = await key.catch((error: unknown) => {
      key = undefined;
      throw error;
    });
    const signed = signRequest(
      { method: request.method, url: request.url, headers: request.headers, body: request.body },
      { keyId, privateKey: privateKeyPem },
      { keyCache },
    );
    return {
      date: signed.date!,
      signature: signed.signature!,
      ...(signed.digest ? { digest: signed.digest } : {}),
    };
  };
}
