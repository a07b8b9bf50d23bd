// The routes of a feature (lists, stores, recipes): its tag and usual access stated once, and
// the answers every REST write gives in one place: a write runs as one family write in the
// caller's family (`familyWrite`); a create by client-chosen id answers 201 with the new record
// or 200 with the one the family already has; a delete answers 204.
import type { z } from 'zod';
import type { Deps } from '../context.js';
import { familyWrite, type FamilyWrite } from '../db/family-write.js';
import type { Created } from '../shared/common.js';
import type { Access, ApiRouter, Input, RouteSpec } from './route.js';

/** A route of the feature: its spec without the tag, and `member` access unless it says so. */
export type FeatureSpec<P extends z.core.$ZodType, Q extends z.core.$ZodType, B extends z.core.$ZodType> = Omit<
  RouteSpec<P, Q, B>,
  'tag' | 'access'
> & { access?: Access };

type In<P extends z.core.$ZodType, Q extends z.core.$ZodType, B extends z.core.$ZodType> = Input<
  z.output<P>,
  z.output<Q>,
  z.output<B>
>;

type Write<P extends z.core.$ZodType, Q extends z.core.$ZodType, B extends z.core.$ZodType, T> = (
  w: FamilyWrite,
  input: In<P, Q, B>,
) => Promise<T>;

export function featureRoutes(api: ApiRouter, deps: Deps, tag: string) {
  const full = <P extends z.core.$ZodType, Q extends z.core.$ZodType, B extends z.core.$ZodType>({
    method,
    path,
    summary,
    access,
    ...rest
  }: FeatureSpec<P, Q, B>): RouteSpec<P, Q, B> => ({ method, path, summary, tag, access: access ?? 'member', ...rest });

  return {
    /** A read: the handler's answer is the body. */
    read<P extends z.core.$ZodType, Q extends z.core.$ZodType, B extends z.core.$ZodType>(
      spec: FeatureSpec<P, Q, B>,
      fn: (input: In<P, Q, B>) => Promise<unknown>,
    ): void {
      api.add(full(spec), async (ctx, input) => {
        ctx.body = await fn(input);
      });
    },

    /** A write as the caller; its answer is the body, sent with `status` (default 200). */
    write<P extends z.core.$ZodType, Q extends z.core.$ZodType, B extends z.core.$ZodType, T>(
      spec: FeatureSpec<P, Q, B>,
      fn: Write<P, Q, B, T>,
      status = 200,
    ): void {
      api.add(full(spec), async (ctx, input) => {
        ctx.body = await familyWrite(deps, input.actor.familyId, (w) => fn(w, input));
        if (status !== 200) ctx.status = status;
      });
    },

    /** A create with a client-chosen id: 201 with the new record, 200 with the existing one. */
    create<P extends z.core.$ZodType, Q extends z.core.$ZodType, B extends z.core.$ZodType, T>(
      spec: FeatureSpec<P, Q, B>,
      fn: Write<P, Q, B, Created<T>>,
    ): void {
      api.add(full(spec), async (ctx, input) => {
        const r = await familyWrite(deps, input.actor.familyId, (w) => fn(w, input));
        ctx.status = r.created ? 201 : 200;
        ctx.body = r.record;
      });
    },

    /** A delete: 204, no body. */
    remove<P extends z.core.$ZodType, Q extends z.core.$ZodType, B extends z.core.$ZodType>(
      spec: FeatureSpec<P, Q, B>,
      fn: Write<P, Q, B, unknown>,
    ): void {
      api.add(full(spec), async (ctx, input) => {
        await familyWrite(deps, input.actor.familyId, (w) => fn(w, input));
        ctx.status = 204;
      });
    },
  };
}
