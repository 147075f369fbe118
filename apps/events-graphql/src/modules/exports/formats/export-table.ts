/** What every format writes: a titled table of plain-text cells, the header row first. */
export interface ExportTable {
  /** The event's title, verbatim (formats escape it as their syntax needs). */
  title: string;
  columns: readonly string[];
  rows: ReadonlyArray<readonly string[]>;
}

/** One file format of the participant export. */
export interface ExportWriter {
  extension: 'csv' | 'pdf' | 'ods';
  contentType: string;
  render(table: ExportTable): Promise<Buffer>;
}
