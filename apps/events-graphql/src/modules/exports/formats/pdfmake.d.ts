// The part of pdfmake 0.3's server API this module uses. (@types/pdfmake pulls the DOM lib into the
// whole program, which changes Node's Buffer/Blob types for every other file.)
declare module 'pdfmake' {
  type Cell = { text: string; bold?: boolean };
  export interface DocumentDefinition {
    pageSize?: string;
    pageOrientation?: 'portrait' | 'landscape';
    info?: { title?: string };
    defaultStyle?: { font?: string; fontSize?: number };
    content: Array<
      | (Cell & { fontSize?: number; margin?: [number, number, number, number] })
      | { table: { headerRows?: number; widths?: Array<string | number>; body: Cell[][] }; layout?: string }
    >;
  }
  interface FontFiles {
    normal: string;
    bold: string;
    italics: string;
    bolditalics: string;
  }
  const pdfmake: {
    setFonts(fonts: Record<string, FontFiles>): void;
    setUrlAccessPolicy(allow: (url: string) => boolean): void;
    setLocalAccessPolicy(allow: (path: string) => boolean): void;
    createPdf(document: DocumentDefinition): { getBuffer(): Promise<Buffer> };
  };
  export default pdfmake;
}
