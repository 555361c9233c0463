/** linebreak (UAX #14, the line breaking pdfkit itself uses) ships no types. */
declare module 'linebreak' {
  class LineBreaker {
    constructor(text: string);
    /** The next place a line may end (`position`: the UTF-16 offset after it), or null at the end. */
    nextBreak(): { position: number; required: boolean } | null;
  }
  export = LineBreaker;
}
