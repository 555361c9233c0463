import { success, type BinaryReplyBody, type ServiceReply } from '@clinic/contracts';

/** A PDF in the envelope, base64-encoded; the gateway sends the bytes (HttpRoute.produces). */
export function pdfReply(filename: string, pdf: Buffer): ServiceReply {
  const body: Omit<BinaryReplyBody, 'success'> = {
    content_type: 'application/pdf',
    filename,
    data_base64: pdf.toString('base64'),
  };
  return success(200, body);
}
