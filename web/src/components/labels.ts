import type { I18n } from '../i18n/i18n.ts';
import type { MessageKey } from '../i18n/messages/en-US.ts';
import { MARKET_CATEGORIES } from '../api/types.ts';

/** A category's name in the locale; a category outside the known list (the API accepts any string) as it is. */
export function categoryName(t: I18n['t'], category: string): string {
  return (MARKET_CATEGORIES as readonly string[]).includes(category) ? t(`category.${category}` as MessageKey) : category;
}
