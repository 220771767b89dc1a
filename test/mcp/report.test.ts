// The luck report through MCP (docs/mcp.md, docs/trust.md#how-lucky-the-night-was), with the
// SDK's own client over a real socket at /mcp and the SQLite store: a table whose dice the test
// chooses, the tool's lines (what was read, the sentence to quote, the means, the rolls in the
// outer tenth of their odds) and its structured answer, the REST answer checked by its schema.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TableReportSchema } from '@fairdice/client/schemas';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { listen, makeApp } from '../support/app.js';
import { envelopeOf, textOf } from '../support/mcp-tables.js';
import { newTable, queuedSource, rollAt } from '../support/report-tables.js';

describe('table_report over /mcp', () => {
  it('answers the report with a line to quote, and refuses an unknown table', async () => {
    const source = queuedSource();
    const app = await makeApp(
      { dataDir: mkdtempSync(join(tmpdir(), 'fairdice-mcp-report-')) },
      { random: source },
    );
    const client = new Client({ name: 'fairdice-test', version: '1.0.0' });
    try {
      const base = await listen(app);
      await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base)));
      const table = await newTable(app);
      await rollAt(app, source, table, '1d20', [20], { by: 'Bo' });
      await rollAt(app, source, table, '1d6', [1], { by: 'Ana' });
      await rollAt(app, source, table, '1d2', [2]);
      const result = (await client.callTool({
        name: 'table_report',
        arguments: { table },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const report = TableReportSchema.parse(result.structuredContent);
      expect(report.rolls.map((r) => r.midPExact)).toEqual(['39/40', '1/12', '3/4']);
      // 39/40 is the 98th percentile (97.5 rounds up), 1/12 the 8th, 3/4 the 75th; mean 1.8083/3.
      const lines = textOf(result).split('\n');
      expect(lines[0]).toBe(`Table ${table}, entries #1 to #3: 3 rolls, 3 rated.`);
      expect(lines[1]).toBe(report.test.sentence);
      expect(lines[1]).toMatch(
        /^Consistent with fair dice: 3 rated rolls averaged the 60th percentile \(mid-P z-test, z = /,
      );
      expect(lines[2]).toBe(
        'Mean: the table 60th percentile (50th is average luck); Bo 98th percentile over 1 roll; Ana 8th percentile over 1 roll; rolls naming nobody 75th percentile over 1 roll.',
      );
      expect(lines[3]).toBe('Rolls in the outer tenth of their odds: #1 1d20 = 20 (Bo), 98th percentile.');
      expect(lines).toHaveLength(4);
      // The same answer as REST.
      const rest = TableReportSchema.parse((await app.inject({ url: `/v1/tables/${table}/report` })).json());
      expect({ ...report, head: undefined }).toEqual({ ...rest, head: undefined });

      const unknown = (await client.callTool({
        name: 'table_report',
        arguments: { table: 'y'.repeat(24) },
      })) as CallToolResult;
      expect(unknown.isError).toBe(true);
      expect(envelopeOf(unknown).error.code).toBe('not_found');
    } finally {
      await client.close();
      await app.close();
    }
  });
});
