import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';

const generate = promisify(generateKeyPair);

export interface ActorKeyPair {
  publicKeyPem: string;
  privateKeyPem: string;
}

/** RSA-2048 as every peer expects; generated on libuv's thread pool, not the event loop. */
export async function generateActorKeyPair(): Promise<ActorKeyPair> {
  const { publicKey, privateKey } = await generate('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}

/** The `publicKey.id` of an actor: `<actor uri>#main-key`, as both references publish it. */
export function mainKeyId(actorUri: string): string {
  return `${actorUri}#main-key`;
}
