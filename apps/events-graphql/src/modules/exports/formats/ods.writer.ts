import { strToU8, zipSync, type Zippable } from 'fflate';
import type { ExportTable, ExportWriter } from './export-table.js';

const MIME_TYPE = 'application/vnd.oasis.opendocument.spreadsheet';

// Characters XML 1.0 cannot carry at all (most C0 controls): dropped rather than producing a broken file.
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

function xml(text: string): string {
  return text
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** A text cell: typed as a string, so nothing in it is ever read as a formula; lines become paragraphs. */
function cell(text: string): string {
  const paragraphs = text.split(/\r?\n/).map((line) => `<text:p>${xml(line)}</text:p>`);
  return `<table:table-cell office:value-type="string">${paragraphs.join('')}</table:table-cell>`;
}

function content(table: ExportTable): string {
  const rows = [table.columns, ...table.rows].map(
    (row) => `<table:table-row>${row.map(cell).join('')}</table:table-row>`,
  );
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"' +
    ' xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"' +
    ' xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.3">' +
    '<office:body><office:spreadsheet>' +
    `<table:table table:name="Participants"><table:table-column table:number-columns-repeated="${table.columns.length}"/>` +
    rows.join('') +
    '</table:table></office:spreadsheet></office:body></office:document-content>'
  );
}

const MANIFEST =
  '<?xml version="1.0" encoding="UTF-8"?>' +
  '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">' +
  `<manifest:file-entry manifest:full-path="/" manifest:version="1.3" manifest:media-type="${MIME_TYPE}"/>` +
  '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>' +
  '</manifest:manifest>';

/**
 * OpenDocument spreadsheet (ODF 1.3 package): a zip whose first entry is the uncompressed `mimetype`,
 * then the manifest and the one sheet in content.xml. The XML is ours (ADR 0022), the zip is fflate's.
 */
export const odsWriter: ExportWriter = {
  extension: 'ods',
  contentType: MIME_TYPE,
  async render(table: ExportTable) {
    // Insertion order is archive order: `mimetype` must come first, stored (level 0), as ODF requires.
    const files: Zippable = {
      mimetype: [strToU8(MIME_TYPE), { level: 0 }],
      'META-INF/manifest.xml': strToU8(MANIFEST),
      'content.xml': strToU8(content(table)),
    };
    return Buffer.from(zipSync(files, { level: 6 }));
  },
};
