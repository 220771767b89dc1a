// The tRPC router, built from the operation table (src/api/operations.ts): one procedure per
// operation, with its input, output, kind and OpenAPI meta, through tRPC's public builder only.
import type { TRPCMutationProcedure, TRPCQueryProcedure } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { z } from 'zod';
import { statusDescription, statusesOf } from '../errors.js';
import { OPERATIONS, type Operation, operationList } from './operations.js';
import { publicProcedure, router, toTrpcError } from './trpc.js';

// biome-ignore lint/suspicious/noConfusingVoidType: tRPC's own type for "no input", so the client calls `health.query()`.
type InputOf<I> = I extends z.ZodType ? z.input<I> : void;
type ProcedureOf<Op> =
  Op extends Operation<infer I, infer O, infer K>
    ? K extends 'query'
      ? TRPCQueryProcedure<{ meta: OpenApiMeta; input: InputOf<I>; output: z.output<O> }>
      : TRPCMutationProcedure<{ meta: OpenApiMeta; input: InputOf<I>; output: z.output<O> }>
    : never;

/** The procedures of a table, typed entry by entry (what the typed client sees). */
type ProceduresOf<T extends Readonly<Record<string, Operation>>> = {
  [K in keyof T]: ProcedureOf<T[K]>;
};

/** What trpc-to-openapi reads: the REST method, path and documentation of the operation. */
function metaOf(entry: Operation): OpenApiMeta {
  return {
    openapi: {
      method: entry.method,
      path: entry.path,
      protect: false,
      tags: [...entry.tags],
      summary: entry.summary,
      description: entry.description,
      errorResponses: Object.fromEntries(
        statusesOf(entry.errors).map((status) => [status, statusDescription(status, entry.errors)]),
      ),
    },
  };
}

/**
 * One procedure per entry. The input is validated by tRPC with the entry's one schema (so tRPC's
 * merging of chained inputs never applies); `run` gets it, and a DiceError it throws leaves with
 * its status.
 */
function procedureOf(entry: Operation) {
  const base = publicProcedure.meta(metaOf(entry));
  const typed = (entry.input === undefined ? base : base.input(entry.input)).output(entry.output);
  const resolve = async ({ input, ctx }: { input: unknown; ctx: Parameters<Operation['run']>[1] }) => {
    try {
      return await entry.run(input as never, ctx);
    } catch (error) {
      throw toTrpcError(error);
    }
  };
  return entry.kind === 'query' ? typed.query(resolve) : typed.mutation(resolve);
}

/** The router of a table of operations (the service's is `appRouter`; tests build their own). */
export function routerOf<T extends Readonly<Record<string, Operation>>>(operations: T) {
  const procedures = Object.fromEntries(
    operationList(operations).map((entry) => [entry.name, procedureOf(entry)]),
  );
  return router(procedures as unknown as ProceduresOf<T>);
}

export const appRouter = routerOf(OPERATIONS);

export type AppRouter = typeof appRouter;
