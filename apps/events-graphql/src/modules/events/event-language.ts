import { detectAll } from 'tinyld';

/** Below this confidence a text is too short or too mixed to name its language. */
const MIN_ACCURACY = 0.2;

/** The language of an event's text (ISO 639-1), or "und" when the detector is not confident. */
export function detectLanguage(title: string, descriptionHtml: string): string {
  const text = `${title}\n${descriptionHtml.replace(/<[^>]*>/g, ' ')}`.replace(/&[a-z#0-9]+;/gi, ' ');
  const [best] = detectAll(text);
  return best && best.accuracy >= MIN_ACCURACY ? best.lang : 'und';
}

/** The language stored: the one given, else the detected one ("und" counts as not given, as its default). */
export function eventLanguage(given: string | undefined, title: string, descriptionHtml: string): string {
  return given && given !== 'und' ? given : detectLanguage(title, descriptionHtml);
}
