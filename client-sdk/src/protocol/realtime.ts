/**
 * Live channel (api-contract §5): one WebSocket endpoint, JSON text frames
 * `{ "type": …, … }`.
 *
 * Client → server: Authenticate (first frame, within AUTH_TIMEOUT_MS; a later one
 * replaces an expiring token), JoinList, LeaveList, Ping.
 * Server → client: Authenticated, JoinedList, Pong, Error, the list-group events and the
 * overview-group events. Events are published after commit, whatever path wrote the
 * change (REST or replication push).
 *
 * Unknown keys are stripped, so either side may add fields without breaking the other;
 * an unknown `type` fails validation (the server answers an Error frame `bad_request`; a client
 * should ignore the frame).
 */
import * as z from 'zod/mini';
import { COLLECTIONS, docSchemas, recordSchemas, uuidSchema, type CollectionName } from './docs.js';
import { checkpointSchema, type Checkpoint } from './sync.js';

export const REALTIME_PATH = '/api/realtime';

/** The first client frame must be an Authenticate within this time, else close 4401. */
export const AUTH_TIMEOUT_MS = 10_000;

/** Largest client→server frame the server accepts (ws `maxPayload`); larger: close 1009. */
export const MAX_CLIENT_FRAME_BYTES = 64 * 1024;

/** Live patches (api-contract §7): `Changed.docs` carries the committed docs of a commit that
 * wrote at most this many docs... */
export const LIVE_PATCH_MAX_DOCS = 100;
/** ...and whose whole `Changed` frame (JSON, UTF-8) is at most this many bytes; above either
 * bound `docs` is absent and clients pull. */
export const LIVE_PATCH_MAX_FRAME_BYTES = 64 * 1024;

/** The row id of a checkpoint that stands at the end of a family version: "every row up to
 *  and including `version`" (what a pull returns once it has read everything). */
const END_OF_VERSION_ID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/** The checkpoint of a family collection that holds everything up to `version` (a live
 *  patch's `checkpoint`, and what a pull that reached the end of `version` returns). */
export function checkpointAtVersion(version: number): Checkpoint {
  return { version, id: END_OF_VERSION_ID };
}

/** Whether a family collection's checkpoint stands exactly at the end of `version` (a
 *  mid-walk checkpoint of a pull that stopped inside a version does not). */
export function isCheckpointAtVersion(checkpoint: Checkpoint | null | undefined, version: number): boolean {
  return !!checkpoint && checkpoint.version === version && checkpoint.id === END_OF_VERSION_ID;
}

/** WebSocket close codes and what the client does about them. */
export const CLOSE_CODES = {
  /** Going away (server shutting down, or the client navigating away): reconnect with backoff. */
  GOING_AWAY: 1001,
  /** Client frame over MAX_CLIENT_FRAME_BYTES: a client bug; do not resend that frame. */
  MESSAGE_TOO_BIG: 1009,
  /** Service restart: reconnect with backoff. */
  SERVICE_RESTART: 1012,
  /** Protocol error: a frame that is not valid JSON or not a valid client frame. */
  PROTOCOL_ERROR: 4400,
  /** Unauthenticated: no Authenticate in time, bad or expired token. Reconnect only
   * with a fresh token. */
  UNAUTHENTICATED: 4401,
  /** The user was removed from the family: do not reconnect with this token. */
  REMOVED_FROM_FAMILY: 4403,
  /** Slow consumer: the server's send buffer for this connection overflowed. Reconnect
   * and re-pull (events were dropped). */
  SLOW_CONSUMER: 4408,
  /** Too many live sockets of this user (the server's MAX_SOCKETS_PER_USER): a new one closed
   *  the user's oldest. Reconnect only when the app is in use again (e.g. on focus), not in a loop. */
  TOO_MANY_SOCKETS: 4429,
} as const;
export type CloseCode = (typeof CLOSE_CODES)[keyof typeof CLOSE_CODES];

/** Correlation id of a request, echoed verbatim in its answer. */
export const requestIdSchema = z.union([z.string().check(z.maxLength(128)), z.int()]);
export type RequestId = z.output<typeof requestIdSchema>;

// ---------------------------------------------------------------------------
// Client → server

export const authenticateFrameSchema = z.object({
  type: z.literal('Authenticate'),
  token: z.string().check(z.minLength(1), z.maxLength(8192)),
});
export const joinListFrameSchema = z.object({
  type: z.literal('JoinList'),
  listId: uuidSchema,
  requestId: z.optional(requestIdSchema),
});
export const leaveListFrameSchema = z.object({
  type: z.literal('LeaveList'),
  listId: uuidSchema,
});

/** Client liveness: answered with Pong (after authentication; as a first frame it is refused
 *  like any frame that is not Authenticate). */
export const pingFrameSchema = z.object({
  type: z.literal('Ping'),
  requestId: z.optional(requestIdSchema),
});

export const clientFrameSchema = z.discriminatedUnion('type', [
  authenticateFrameSchema,
  joinListFrameSchema,
  leaveListFrameSchema,
  pingFrameSchema,
]);
export type ClientFrame = z.output<typeof clientFrameSchema>;
export type AuthenticateFrame = z.output<typeof authenticateFrameSchema>;
export type JoinListFrame = z.output<typeof joinListFrameSchema>;
export type LeaveListFrame = z.output<typeof leaveListFrameSchema>;
export type PingFrame = z.output<typeof pingFrameSchema>;

// ---------------------------------------------------------------------------
// Server → client

const itemSchema = recordSchemas.items;
/** A list in ListCreated/ListUpdated: the list record, optionally with the summary counts. */
export const listEventPayloadSchema = z.object({
  ...recordSchemas.lists.shape,
  itemCount: z.optional(z.int().check(z.minimum(0))),
  checkedCount: z.optional(z.int().check(z.minimum(0))),
});

export const authenticatedFrameSchema = z.object({
  type: z.literal('Authenticated'),
  familyId: uuidSchema,
});
export const joinedListFrameSchema = z.object({
  type: z.literal('JoinedList'),
  listId: uuidSchema,
  requestId: z.optional(requestIdSchema),
});
/** The answer to Ping (requestId echoed when the Ping had one). */
export const pongFrameSchema = z.object({
  type: z.literal('Pong'),
  requestId: z.optional(requestIdSchema),
});
/** e.g. `{ type: 'Error', code: 'not_found', requestId }` for a JoinList of a list that
 * is not the family's. */
export const errorFrameSchema = z.object({
  type: z.literal('Error'),
  code: z.string(),
  message: z.optional(z.string()),
  requestId: z.optional(requestIdSchema),
});

// List group events
export const itemAddedFrameSchema = z.object({
  type: z.literal('ItemAdded'),
  listId: uuidSchema,
  item: itemSchema,
});
export const itemUpdatedFrameSchema = z.object({
  type: z.literal('ItemUpdated'),
  listId: uuidSchema,
  item: itemSchema,
});
export const itemSectionChangedFrameSchema = z.object({
  type: z.literal('ItemSectionChanged'),
  listId: uuidSchema,
  itemId: uuidSchema,
  sectionId: z.nullable(uuidSchema),
  previousSectionId: z.nullable(uuidSchema),
});
export const itemCheckedFrameSchema = z.object({
  type: z.literal('ItemChecked'),
  listId: uuidSchema,
  itemId: uuidSchema,
  checked: z.boolean(),
});
export const itemRemovedFrameSchema = z.object({
  type: z.literal('ItemRemoved'),
  listId: uuidSchema,
  itemId: uuidSchema,
  removedByUserId: z.nullable(uuidSchema),
});
export const itemRestoredFrameSchema = z.object({
  type: z.literal('ItemRestored'),
  listId: uuidSchema,
  item: itemSchema,
});

// Overview group events
export const listCreatedFrameSchema = z.object({
  type: z.literal('ListCreated'),
  list: listEventPayloadSchema,
});
export const listUpdatedFrameSchema = z.object({
  type: z.literal('ListUpdated'),
  list: listEventPayloadSchema,
});
export const listArchivedFrameSchema = z.object({
  type: z.literal('ListArchived'),
  listId: uuidSchema,
});
export const listDeletedFrameSchema = z.object({
  type: z.literal('ListDeleted'),
  listId: uuidSchema,
});
export const listProgressFrameSchema = z.object({
  type: z.literal('ListProgress'),
  listId: uuidSchema,
  itemCount: z.int().check(z.minimum(0)),
  checkedCount: z.int().check(z.minimum(0)),
});
/** One collection's part of a live patch: the docs a commit wrote, in the pull shape, and the
 *  checkpoint a pull from `previous` would have returned after them. */
function patchSchemaOf<C extends CollectionName>(c: C) {
  return z.object({ documents: z.array(docSchemas[c]), checkpoint: checkpointSchema });
}
/** `Changed.docs`: per collection the commit wrote (family collections only; the catalogs
 *  `products` and `units` are never patched, see docs/realtime.md). */
export const changedDocsSchema = z.object({
  lists: z.optional(patchSchemaOf('lists')),
  items: z.optional(patchSchemaOf('items')),
  stores: z.optional(patchSchemaOf('stores')),
  sections: z.optional(patchSchemaOf('sections')),
  recipes: z.optional(patchSchemaOf('recipes')),
  ingredients: z.optional(patchSchemaOf('ingredients')),
  products: z.optional(patchSchemaOf('products')),
  units: z.optional(patchSchemaOf('units')),
  sectionMemory: z.optional(patchSchemaOf('sectionMemory')),
});
export type ChangedDocs = z.output<typeof changedDocsSchema>;

/** After every committed family change: the replication nudge. `version` is the family
 * counter value of the commit and `previous` the one before it; `collections`, when present,
 * names the replication collections the commit wrote (a client pulls just those); absent means
 * "any". `docs` (live patch, api-contract §7) carries the committed docs of a small commit: a
 * client whose checkpoint of a collection is exactly at `previous` applies them and takes their
 * checkpoint instead of pulling. `previous` and `docs` are optional for the sake of older
 * servers; this server always sends `previous`. */
export const changedFrameSchema = z.object({
  type: z.literal('Changed'),
  version: z.int().check(z.minimum(0)),
  previous: z.optional(z.int().check(z.minimum(0))),
  collections: z.optional(z.array(z.enum(COLLECTIONS))),
  docs: z.optional(changedDocsSchema),
});
export type ChangedFrame = z.output<typeof changedFrameSchema>;

export const listEventFrameSchema = z.discriminatedUnion('type', [
  itemAddedFrameSchema,
  itemUpdatedFrameSchema,
  itemSectionChangedFrameSchema,
  itemCheckedFrameSchema,
  itemRemovedFrameSchema,
  itemRestoredFrameSchema,
]);
export const overviewEventFrameSchema = z.discriminatedUnion('type', [
  listCreatedFrameSchema,
  listUpdatedFrameSchema,
  listArchivedFrameSchema,
  listDeletedFrameSchema,
  listProgressFrameSchema,
  changedFrameSchema,
]);

export const serverFrameSchema = z.discriminatedUnion('type', [
  authenticatedFrameSchema,
  joinedListFrameSchema,
  pongFrameSchema,
  errorFrameSchema,
  listEventFrameSchema,
  overviewEventFrameSchema,
]);

export type ServerFrame = z.output<typeof serverFrameSchema>;
/** Events delivered to the members of a list group (JoinList). */
export type ListEventFrame = z.output<typeof listEventFrameSchema>;
/** Events delivered to the family's overview group (every authenticated connection). */
export type OverviewEventFrame = z.output<typeof overviewEventFrameSchema>;
export type ServerFrameType = ServerFrame['type'];
export type ClientFrameType = ClientFrame['type'];
/** The server frame of a given `type`. */
export type ServerFrameOf<T extends ServerFrameType> = Extract<ServerFrame, { type: T }>;

export const LIST_EVENT_TYPES = [
  'ItemAdded',
  'ItemUpdated',
  'ItemSectionChanged',
  'ItemChecked',
  'ItemRemoved',
  'ItemRestored',
] as const satisfies readonly ListEventFrame['type'][];
export const OVERVIEW_EVENT_TYPES = [
  'ListCreated',
  'ListUpdated',
  'ListArchived',
  'ListDeleted',
  'ListProgress',
  'Changed',
] as const satisfies readonly OverviewEventFrame['type'][];

// ---------------------------------------------------------------------------
// Codec

export type DecodeResult<T> = { ok: true; frame: T } | { ok: false; error: string };

function decodeWith<T>(schema: z.ZodMiniType<T>, text: string): DecodeResult<T> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, error: 'frame is not valid JSON' };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { ok: false, error: z.prettifyError(parsed.error) };
  return { ok: true, frame: parsed.data };
}

/** Server side: parse a client text frame (the size limit is the socket's job). */
export function decodeClientFrame(text: string): DecodeResult<ClientFrame> {
  return decodeWith(clientFrameSchema, text);
}

/** Client side: parse a server text frame. */
export function decodeServerFrame(text: string): DecodeResult<ServerFrame> {
  return decodeWith(serverFrameSchema, text);
}

export function encodeFrame(frame: ClientFrame | ServerFrame): string {
  return JSON.stringify(frame);
}
