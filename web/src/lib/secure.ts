/**
 * Contract §11: opened over plain http on a home network (not a secure context) the app works
 * (sign in, live updates, offline edits kept in IndexedDB). Only the service worker needs a
 * secure context: with it the app opens with no network at all and can be installed. This one
 * notice says so, on the Account page and in the status bar's title; nothing refuses to start.
 */
export const plainHttp = typeof window !== 'undefined' && !window.isSecureContext;

export const PLAIN_HTTP_NOTICE =
  'Opened over plain HTTP: the app works and keeps your changes while offline, but it cannot open with no network at all or be installed on the home screen. HTTPS adds both (the README says how to set it up).';
