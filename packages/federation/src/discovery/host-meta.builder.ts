import { JRD_MEDIA_TYPE, XRD_MEDIA_TYPE, type Jrd } from './webfinger.types.js';
import { jrdToXrd } from './xrd.serializer.js';

/** The lrdd template pointing at our WebFinger endpoint (RFC 6415). */
export function webFingerTemplate(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/.well-known/webfinger?resource={uri}`;
}

/** `/.well-known/host-meta.json`: the JRD form, whose lrdd link answers JRD. */
export function buildHostMetaJrd(publicUrl: string): Jrd {
  return { links: [{ rel: 'lrdd', type: JRD_MEDIA_TYPE, template: webFingerTemplate(publicUrl) }] };
}

/** `/.well-known/host-meta`: the XRD form early Mastodon served (`type="application/xrd+xml"`). */
export function buildHostMetaXrd(publicUrl: string): string {
  return jrdToXrd({
    links: [{ rel: 'lrdd', type: XRD_MEDIA_TYPE, template: webFingerTemplate(publicUrl) }],
  });
}
