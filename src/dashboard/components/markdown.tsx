// Markdown a person wrote (a note), shown formatted. micromark's defaults are the safe ones: HTML in
// the text is shown as text, and links or images with a dangerous protocol (javascript:, data:…)
// lose their target, so nothing in a note can run in the reader's session.
import { micromark } from 'micromark';

export function Markdown({ source }: { source: string }) {
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: micromark(source) }} />;
}
