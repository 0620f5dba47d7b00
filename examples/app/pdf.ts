/**
 * A hand-written PDF 1.4 writer for one-page invoices: no PDF library, just the
 * objects, an uncompressed content stream and a byte-exact cross-reference table.
 */

/** One billed line of an invoice. */
export interface InvoiceLine {
  /** What was billed, e.g. `Acme Pro plan, monthly`. */
  description: string;
  /** Amount in cents. */
  amountCents: number;
}

/** What goes on the invoice PDF. */
export interface InvoiceDocument {
  /** Invoice number as printed, e.g. `INV-1001`. */
  number: string;
  /** Issue date, printed as YYYY-MM-DD (UTC). */
  issuedAt: Date;
  /** The customer's email address. */
  billedTo: string;
  /** ISO currency code printed before amounts. */
  currency: string;
  /** The billed lines; their sum is the amount due. */
  lines: readonly InvoiceLine[];
}

/**
 * Formats cents as `49.00`.
 *
 * @example formatAmount(4900) // '49.00'
 */
export function formatAmount(cents: number): string {
  return (cents / 100).toFixed(2);
}

/** The sum of an invoice's lines, in cents. */
export function invoiceTotalCents(invoice: InvoiceDocument): number {
  return invoice.lines.reduce((sum, line) => sum + line.amountCents, 0);
}

/** A PDF literal string: ASCII only, with `\`, `(` and `)` escaped. */
function pdfText(value: string): string {
  const ascii = value.replace(/[^\x20-\x7e]/g, '?');
  return `(${ascii.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

function textAt(font: 'F1' | 'F2', size: number, x: number, y: number, text: string): string {
  return `BT /${font} ${size} Tf ${x} ${y} Td ${pdfText(text)} Tj ET`;
}

function contentStream(invoice: InvoiceDocument): string {
  const date = invoice.issuedAt.toISOString().slice(0, 10);
  const total = `${invoice.currency} ${formatAmount(invoiceTotalCents(invoice))}`;
  const ops: string[] = [
    '0.31 0.27 0.9 rg 0 792 595 50 re f',
    '1 1 1 rg',
    textAt('F2', 20, 56, 810, 'Acme'),
    '0 0 0 rg',
    textAt('F2', 18, 56, 740, `Invoice ${invoice.number}`),
    textAt('F1', 11, 56, 718, `Issued: ${date}`),
    textAt('F1', 11, 56, 702, `Billed to: ${invoice.billedTo}`),
    textAt('F1', 11, 380, 718, 'Acme Inc., 1 Example Way'),
    textAt('F1', 11, 380, 702, 'Springfield, EX 00000'),
    textAt('F2', 11, 56, 660, 'Description'),
    textAt('F2', 11, 460, 660, 'Amount'),
    '0.5 w 56 652 m 539 652 l S',
  ];
  let y = 634;
  for (const line of invoice.lines) {
    ops.push(textAt('F1', 11, 56, y, line.description));
    ops.push(textAt('F1', 11, 460, y, `${invoice.currency} ${formatAmount(line.amountCents)}`));
    y -= 18;
  }
  ops.push(`0.5 w 56 ${y + 6} m 539 ${y + 6} l S`);
  ops.push(textAt('F2', 12, 56, y - 14, `Amount due: ${total}`));
  ops.push(textAt('F1', 9, 56, 60, 'Thank you for your business. Questions? billing@acme.example'));
  return ops.join('\n') + '\n';
}

/**
 * Builds a valid one-page PDF invoice. The text (invoice number, amounts) sits
 * in an uncompressed content stream, so a test can read it from the bytes.
 *
 * @example
 * const pdf = buildInvoicePdf({ number: 'INV-1001', issuedAt: new Date(), billedTo: 'a@b.example',
 *   currency: 'USD', lines: [{ description: 'Acme Pro plan, monthly', amountCents: 4900 }] });
 */
export function buildInvoicePdf(invoice: InvoiceDocument): Buffer {
  const stream = contentStream(invoice);
  const pdfDate = invoice.issuedAt.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const objects: string[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> /Contents 6 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}endstream`,
    `<< /Title ${pdfText(`Invoice ${invoice.number}`)} /Author (Acme Inc.) /Producer (inboxkit example app) /CreationDate (D:${pdfDate}Z) >>`,
  ];

  // Offsets are byte positions, so the file is assembled as latin1 bytes; the
  // second header line is the customary binary marker (bytes above 127).
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = chunks[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(length);
    const chunk = Buffer.from(`${index + 1} 0 obj\n${body}\nendobj\n`, 'latin1');
    chunks.push(chunk);
    length += chunk.length;
  });

  const xrefOffset = length;
  // Each xref entry is exactly 20 bytes: 10-digit offset, 5-digit generation, type, space + LF.
  const entries = ['0000000000 65535 f \n', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)];
  const tail =
    `xref\n0 ${objects.length + 1}\n${entries.join('')}` +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 7 0 R >>\nstartxref\n${xrefOffset}\n%%EOF\n`;
  chunks.push(Buffer.from(tail, 'latin1'));
  return Buffer.concat(chunks);
}
