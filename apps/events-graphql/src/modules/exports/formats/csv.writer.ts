import { stringify } from 'csv-stringify/sync';
import type { ExportTable, ExportWriter } from './export-table.js';

/**
 * RFC 4180 CSV (comma, CRLF-free `\n` rows as the reference writes them, quotes where needed). Cells
 * that a spreadsheet would run as formulas (`=`, `+`, `-`, `@`…) are prefixed with `'`: names come
 * from remote instances too.
 */
export const csvWriter: ExportWriter = {
  extension: 'csv',
  contentType: 'text/csv; charset=utf-8',
  render: async (table: ExportTable) =>
    Buffer.from(stringify([table.columns, ...table.rows], { escape_formulas: true }), 'utf8'),
};
