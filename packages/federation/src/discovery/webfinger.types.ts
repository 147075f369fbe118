/** One link of a WebFinger/host-meta document (RFC 7033 §4.4.4; RFC 6415 for `template`). */
export interface WebFingerLink {
  rel: string;
  type?: string;
  href?: string;
  template?: string;
}

/** A JSON Resource Descriptor (`application/jrd+json`). */
export interface Jrd {
  subject?: string;
  aliases?: string[];
  links: WebFingerLink[];
}

export const JRD_MEDIA_TYPE = 'application/jrd+json';
export const XRD_MEDIA_TYPE = 'application/xrd+xml';
export const JRD_CONTENT_TYPE = `${JRD_MEDIA_TYPE}; charset=utf-8`;
export const XRD_CONTENT_TYPE = `${XRD_MEDIA_TYPE}; charset=utf-8`;

export const REL_SELF = 'self';
export const REL_PROFILE_PAGE = 'http://webfinger.net/rel/profile-page';
export const REL_AVATAR = 'http://webfinger.net/rel/avatar';
export const REL_SUBSCRIBE = 'http://ostatus.org/schema/1.0/subscribe';
/** The early (OStatus) protocol's links, for the microblog's `extraLinks`. */
export const REL_UPDATES_FROM = 'http://schemas.google.com/g/2010#updates-from';
export const REL_SALMON = 'salmon';
export const REL_MAGIC_PUBLIC_KEY = 'magic-public-key';
