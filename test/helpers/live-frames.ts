// Every live-channel frame a test socket receives (test/integration/realtime/client.ts) is decoded
// with the protocol's own decoder, as the SDK does; a frame that does not decode is kept here and
// fails the test that received it (root hook in test/setup.ts). So the server cannot send a frame
// outside the protocol unnoticed, whatever a test asserts about it.
import { decodeServerFrame } from '@family-shopping/client/protocol';

const undecodable: string[] = [];

/** Checks one received text frame. */
export function checkServerFrame(text: string): void {
  const decoded = decodeServerFrame(text);
  if (!decoded.ok) undecodable.push(`${decoded.error}\n  frame: ${text.slice(0, 300)}`);
}

/** The frames received since the last call that did not decode (and forgets them). */
export function takeUndecodableFrames(): string[] {
  return undecodable.splice(0);
}
