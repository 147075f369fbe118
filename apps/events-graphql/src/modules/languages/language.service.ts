import { iso6393 } from 'iso-639-3';

export interface Language {
  code: string;
  name: string;
}

const MAX_CACHED_LOCALES = 16;

/** ISO 639 languages: the ISO 639-3 list, coded with ISO 639-1 where a two-letter code exists. */
const LANGUAGES: readonly Language[] = iso6393.map((language) => ({
  code: language.iso6391 ?? language.iso6393,
  name: language.name,
}));

/** Language names in a locale, from the runtime's CLDR data, falling back to the English ISO name. */
export class LanguageService {
  private readonly byLocale = new Map<string, Language[]>();

  list(locale: string, codes?: readonly string[] | null): Language[] {
    const languages = this.localized(locale);
    if (codes === undefined || codes === null) return languages;
    const wanted = new Set(codes);
    return languages.filter((language) => wanted.has(language.code));
  }

  private localized(requested: string): Language[] {
    const locale = Intl.DisplayNames.supportedLocalesOf([requested])[0] ?? 'en';
    const cached = this.byLocale.get(locale);
    if (cached) {
      // Most recently used last, so the oldest is evicted first.
      this.byLocale.delete(locale);
      this.byLocale.set(locale, cached);
      return cached;
    }
    const names = new Intl.DisplayNames([locale], { type: 'language', fallback: 'none' });
    const languages = LANGUAGES.map((language) => ({
      code: language.code,
      name: names.of(language.code) ?? language.name,
    }));
    if (this.byLocale.size >= MAX_CACHED_LOCALES) {
      const oldest = this.byLocale.keys().next().value;
      if (oldest !== undefined) this.byLocale.delete(oldest);
    }
    this.byLocale.set(locale, languages);
    return languages;
  }
}
