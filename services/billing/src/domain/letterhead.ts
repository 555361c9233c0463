/** What heads a branch's papers: its letterhead from the reference data, or its name alone. Pure. */
import type { Letterhead } from '@clinic/contracts';

export interface LetterheadLines {
  /** The legal name, else the branch's name. */
  title: string;
  /** Under the title: the branch's name when the legal name differs, the address, phone, registration. */
  lines: string[];
  logo: { mediaType: string; data: Buffer } | null;
}

export function letterheadOf(
  branch: { name: string; letterhead?: Letterhead } | null,
  branchId: number,
): LetterheadLines {
  const name = branch?.name ?? `Branch ${branchId}`;
  const head = branch?.letterhead;
  if (!head) return { title: name, lines: [], logo: null };
  const lines = [
    ...(head.legal_name === name ? [] : [name]),
    head.address,
    head.phone && `Tel: ${head.phone}`,
    head.registration_no && `Reg. No: ${head.registration_no}`,
  ].filter((line): line is string => typeof line === 'string' && line.trim() !== '');
  return {
    title: head.legal_name,
    lines,
    logo: head.logo ? logoOf(Buffer.from(head.logo.data_base64, 'base64')) : null,
  };
}

/** A PNG or a JPEG by its first bytes (what pdfkit reads); anything else is no logo. */
function logoOf(data: Buffer): LetterheadLines['logo'] {
  if (data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return { mediaType: 'image/png', data };
  if (data[0] === 0xff && data[1] === 0xd8) return { mediaType: 'image/jpeg', data };
  return null;
}
