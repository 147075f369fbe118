import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import pdfmake from 'pdfmake';
import type { DocumentDefinition } from 'pdfmake';
import type { ExportTable, ExportWriter } from './export-table.js';

// pdfmake's own Roboto files: Latin, Greek and Cyrillic names print as they are, on any machine.
const FONT_DIR = join(
  dirname(createRequire(import.meta.url).resolve('pdfmake/package.json')),
  'fonts',
  'Roboto',
);
const FONT = {
  normal: join(FONT_DIR, 'Roboto-Regular.ttf'),
  bold: join(FONT_DIR, 'Roboto-Medium.ttf'),
  italics: join(FONT_DIR, 'Roboto-Italic.ttf'),
  bolditalics: join(FONT_DIR, 'Roboto-MediumItalic.ttf'),
};

let configured = false;

/** pdfmake keeps its fonts and policies per process: set once, and read nothing but the fonts. */
function configure(): void {
  if (configured) return;
  pdfmake.setFonts({ Roboto: FONT });
  pdfmake.setUrlAccessPolicy(() => false);
  pdfmake.setLocalAccessPolicy((path) => path.startsWith(FONT_DIR));
  configured = true;
}

/** An A4 page (landscape: four columns) with the event's title and the table, its header on every page. */
export const pdfWriter: ExportWriter = {
  extension: 'pdf',
  contentType: 'application/pdf',
  async render(table: ExportTable) {
    configure();
    const document: DocumentDefinition = {
      pageSize: 'A4',
      pageOrientation: 'landscape',
      info: { title: `Participants for ${table.title}` },
      defaultStyle: { font: 'Roboto', fontSize: 10 },
      content: [
        { text: `Participants for ${table.title}`, fontSize: 16, bold: true, margin: [0, 0, 0, 12] },
        {
          table: {
            headerRows: 1,
            widths: ['*', 90, '*', 'auto'],
            body: [
              table.columns.map((column) => ({ text: column, bold: true })),
              ...table.rows.map((row) => row.map((cell) => ({ text: cell }))),
            ],
          },
          layout: 'lightHorizontalLines',
        },
      ],
    };
    return pdfmake.createPdf(document).getBuffer();
  },
};
