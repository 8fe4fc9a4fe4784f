import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRawStream, PDFString } from 'pdf-lib';

/**
 * The content of the file attached to `pdf` under `name` (its EmbeddedFiles name tree), or
 * undefined when there is none. Reads only what a statement PDF of ours has: a flat name tree.
 * Call it on files whose signature was checked first, so no stranger's PDF reaches the parser.
 */
export async function pdfAttachment(pdf: Uint8Array, name: string): Promise<Uint8Array | undefined> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const names = doc.catalog
    .lookupMaybe(PDFName.of('Names'), PDFDict)
    ?.lookupMaybe(PDFName.of('EmbeddedFiles'), PDFDict)
    ?.lookupMaybe(PDFName.of('Names'), PDFArray);
  if (!names) return undefined;
  for (let i = 0; i + 1 < names.size(); i += 2) {
    const key = names.lookup(i);
    if (!(key instanceof PDFString || key instanceof PDFHexString) || key.decodeText() !== name) continue;
    const stream = names
      .lookupMaybe(i + 1, PDFDict)
      ?.lookupMaybe(PDFName.of('EF'), PDFDict)
      ?.lookup(PDFName.of('F'));
    return stream instanceof PDFRawStream ? decodePDFRawStream(stream).decode() : undefined;
  }
  return undefined;
}
