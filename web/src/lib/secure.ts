/**
 * Contract §11: opened over plain http on a home network (not a secure context) the app works
 * (sign in, live updates, offline edits kept in IndexedDB). Only the service worker needs a
 * secure context: with it the app opens with no network at all and can be installed. One
 * notice says so (`secure.plainHttp` in the catalogs), on the Account page and in the status
 * bar's title; nothing refuses to start.
 */
export const plainHttp = typeof window !== 'undefined' && !window.isSecureContext;
