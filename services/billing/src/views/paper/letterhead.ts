/** The letterhead every paper starts with: the logo, the issuer's name, its branch, address, phone, registration. */
import type { LetterheadLines } from '../../domain/letterhead';
import type { PageWriter } from './page-writer';

export function layOutLetterhead(
  w: PageWriter,
  head: LetterheadLines,
  sizes: { title: number; text: number; logo: number },
): void {
  if (head.logo) {
    const { data } = head.logo;
    w.drawing(sizes.logo, (doc, box) => {
      // A logo pdfkit cannot read leaves its space blank rather than failing the paper.
      try {
        doc.image(data, box.left, box.top, { fit: [box.width, sizes.logo], align: 'center', valign: 'center' });
      } catch {
        /* left blank */
      }
    });
    w.gap(2);
  }
  w.centered(head.title, { bold: true, size: sizes.title });
  for (const line of head.lines) w.centered(line, { size: sizes.text });
}
