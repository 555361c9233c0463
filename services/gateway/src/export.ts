/**
 * GET /lab_bills/export: the file written from billing's pages as they come.
 * The first page is asked before anything is sent, so that a refusal is the
 * usual JSON envelope; then each next page is asked only once the file's
 * bytes so far have gone out (Readable.from pulls as the socket drains), so
 * that the gateway holds about one page whatever the export's size.
 */
import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import ExcelJS from 'exceljs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NatsConnection } from 'nats';
import { EXPORT_FILES, type ExportColumn, type ExportSheet, type HttpRoute } from '@clinic/contracts';
import { callServiceRaw, splitReply } from '@clinic/service-kit';
import type { GatewayConfig } from './config';
import { requestEnvelope } from './envelope';
import { cellForCsv, cellForExcel, EXCEL_FORMATS } from './export-cells';

type Row = Record<string, unknown>;
/** A page: its rows under the name of their part (`bills`, `items`, `entries`). */
type Page = { as_of: string; next: string | null } & { [part: string]: Row[] | undefined };

/** Asks billing for the pages of one part of the export, the first given, and yields their rows. */
type Pages = (part: string, first?: Page) => AsyncGenerator<Row[]>;

export async function sendExport(
  route: HttpRoute,
  request: FastifyRequest,
  reply: FastifyReply,
  { config, nc }: { config: GatewayConfig; nc: NatsConnection },
): Promise<FastifyReply> {
  // The paging parameters are the gateway's own: one sent over HTTP would start the file at another page.
  const query = Object.fromEntries(
    Object.entries(request.query as Record<string, string>).filter(([name]) => !route.natsOnlyQuery?.includes(name)),
  );
  const ask = async (extra: Record<string, string>) => {
    const envelope = requestEnvelope(route, {}, { ...query, ...extra }, undefined);
    return splitReply(
      await callServiceRaw(nc, route.subject, envelope, {
        token: request.token,
        correlationId: request.id,
        timeoutMs: config.requestTimeoutMs,
        traceContext: request.httpSpan?.context,
      }),
    );
  };
  const { prefix, sheets } = EXPORT_FILES[route.subject]!;
  const first = await ask({ part: sheets[0]!.part });
  // A refusal (400, 403...) goes out as the service wrote it.
  if (first.status !== 200)
    return reply
      .code(first.status)
      .type('application/json; charset=utf-8')
      .send(Buffer.from(first.body.buffer, first.body.byteOffset, first.body.byteLength));
  const firstPage = parse(first.body);
  const pages: Pages = async function* (part, page) {
    let current = page ?? parse((await answered(await ask({ part, as_of: firstPage.as_of }))).body);
    for (;;) {
      yield current[part] ?? [];
      if (current.next === null) return;
      current = parse((await answered(await ask({ part, as_of: firstPage.as_of, cursor: current.next }))).body);
    }
  };
  const format = query.format === 'xlsx' ? 'xlsx' : 'csv';
  const range = query.date ?? `${query.from ?? query.from_date}_${query.to ?? query.to_date}`;
  reply
    .code(200)
    .type(route.exports![format]!)
    .header('content-disposition', `attachment; filename="${prefix}-${query.store_id}-${range}.${format}"`);
  const file =
    format === 'csv' ? Readable.from(csvChunks(pages, firstPage, sheets[0]!)) : xlsxStream(pages, firstPage, sheets);
  file.on('error', (err) => {
    request.log.error({ err, correlation_id: request.id }, 'export stopped: the file is incomplete');
  });
  return reply.send(file);
}

const decoder = new TextDecoder();
const parse = (body: Uint8Array): Page => JSON.parse(decoder.decode(body)) as Page;

async function answered(reply: { status: number; body: Uint8Array }) {
  if (reply.status !== 200) throw new Error(`export page answered ${reply.status}: ${decoder.decode(reply.body)}`);
  return reply;
}

/**
 * RFC 4180 (CRLF, quotes doubled), UTF-8 with a BOM so that Excel reads Sinhala and Tamil. A field holding a
 * CR or an LF alone is quoted too: csv-stringify quotes only the record delimiter, and a reader would start a row.
 */
async function* csvChunks(pages: Pages, first: Page, sheet: ExportSheet): AsyncGenerator<string> {
  const options = { record_delimiter: 'windows' as const, quoted_match: [/^\s|\s$/, /[\r\n]/] };
  yield `\ufeff${stringify([sheet.columns.map((c) => c.key)], options)}`;
  for await (const rows of pages(sheet.part, first)) {
    yield stringify(
      rows.map((row) => sheet.columns.map((column) => cellForCsv(column, row[column.key]))),
      options,
    );
  }
}

/** Until what was written to `out` has gone on to the client (or the client went away). */
async function sent(out: PassThrough): Promise<void> {
  while (!out.destroyed && (out.writableNeedDrain || out.readableLength > 0)) {
    await Promise.race([once(out, out.writableNeedDrain ? 'drain' : 'data'), once(out, 'close')]);
  }
  if (out.destroyed) throw new Error('the client went away');
}

/** The workbook written by exceljs's streaming writer: a sheet per part, each a pass over the pages. */
function xlsxStream(pages: Pages, first: Page, sheets: readonly ExportSheet[]): Readable {
  const out = new PassThrough();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const writeSheet = async (name: string, columns: ExportColumn[], rows: AsyncGenerator<Row[]>) => {
    const sheet = workbook.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1 }] });
    sheet.columns = columns.map((c) => ({ header: c.key, key: c.key, style: EXCEL_FORMATS[c.type] }));
    for await (const page of rows) {
      for (const row of page) {
        sheet.addRow(Object.fromEntries(columns.map((c) => [c.key, cellForExcel(c, row[c.key])]))).commit();
      }
      await sent(out);
    }
    sheet.commit();
  };
  void (async () => {
    for (const [i, sheet] of sheets.entries())
      await writeSheet(sheet.name, sheet.columns, pages(sheet.part, i === 0 ? first : undefined));
    await workbook.commit();
  })().catch((err: unknown) => out.destroy(err as Error));
  return out;
}
