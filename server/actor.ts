// Who is calling: the lowest floor of the server (no imports), so that any layer may name it.

export type Role = 'admin' | 'member';

/** The authenticated caller: user, the family stamped in the token, and the current role. */
export interface Actor {
  userId: string;
  familyId: string;
  role: Role;
  /** The session (refresh-token chain) named by the access token's `sid` claim, if any. */
  sessionId?: string;
}
