// The answer of /v1/health, declared once.
import { z } from 'zod';

const healthResponse = z
  .strictObject({
    status: z.literal('ok'),
    version: z.string().meta({ description: 'Implementation version (semantic versioning); informational.' }),
  })
  // No component id here: the service names it where it adds an example with its version.
  .meta({ description: 'The service is alive.' });

/** The answer of `health`. */
export interface HealthResponse extends z.output<typeof healthResponse> {}
export const HealthResponseSchema: z.ZodType<HealthResponse, HealthResponse> = healthResponse;
